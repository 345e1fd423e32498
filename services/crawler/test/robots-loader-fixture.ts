/**
 * What the RobotsLoader tests (robots-loader-*.test.ts) share: one test server whose
 * robots.txt answers per virtual host, so each test picks a behaviour by host name and
 * counts the requests that host alone received.
 */
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll } from 'vitest';
import { Fetcher } from '../src/fetcher.js';
import { startTestServer, type TestServer, testDns } from './fixtures/test-server.js';

export const UA = 'shardline/0.1 (+https://example.com/bot)';
export const HOUR = 3_600_000;

/** robots.txt behaviour per virtual host (the part of the Host header before the port). */
export type Behaviour = (res: ServerResponse, hop: number) => void;

export interface RobotsHosts {
  /** The hosts' behaviours; a test may add a host of its own. */
  readonly behaviours: Map<string, Behaviour>;
  /** Set once the enclosing describe's beforeAll ran. */
  readonly server: TestServer;
  readonly fetcher: Fetcher;
  origin(host: string): string;
  /** Requests `host` received, redirects included. */
  count(host: string): number;
}

const robots200 =
  (body: string | Buffer, headers: Record<string, string> = {}): Behaviour =>
  (res) => {
    res.writeHead(200, { 'content-type': 'text/plain', ...headers });
    res.end(body);
  };

/** Starts the server and its fetcher before the enclosing describe's tests; call inside `describe`. */
export function robotsHosts(): RobotsHosts {
  let server: TestServer;
  let fetcher: Fetcher;
  const behaviours = new Map<string, Behaviour>();
  const hits = new Map<string, number>();
  const count = (host: string) => hits.get(host) ?? 0;

  beforeAll(async () => {
    server = await startTestServer();
    const route = (path: string) =>
      server.route(path, (req, res) => {
        const host = (req.headers.host ?? '').split(':')[0] ?? '';
        hits.set(host, count(host) + 1);
        const behaviour = behaviours.get(host);
        if (!behaviour) {
          res.writeHead(404);
          res.end();
          return;
        }
        const hop = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('hop') ?? '0');
        behaviour(res, hop);
      });
    route('/robots.txt');
    route('/moved');
    fetcher = new Fetcher({ dns: testDns(), contactUrl: 'https://example.com/bot' });

    behaviours.set(
      'rules.test',
      robots200(
        'User-agent: *\nDisallow: /private\n\nUser-agent: shardline\nDisallow: /no-bots\nCrawl-delay: 2\n',
      ),
    );
    behaviours.set('missing.test', (res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<h1>nope</h1>');
    });
    behaviours.set('forbidden.test', (res) => {
      res.writeHead(403);
      res.end();
    });
    behaviours.set('busy.test', (res) => {
      res.writeHead(503, { 'retry-after': '900' });
      res.end();
    });
    const chain =
      (length: number): Behaviour =>
      (res, hop) => {
        if (hop < length) {
          res.writeHead(301, { location: `/moved?hop=${hop + 1}` });
          res.end();
        } else {
          res.writeHead(200, { 'content-type': 'text/plain' });
          res.end('User-agent: *\nDisallow: /end-of-chain\n');
        }
      };
    behaviours.set('chain5.test', chain(5));
    behaviours.set('chain6.test', chain(6));
    behaviours.set('hop-away.test', (res) => {
      res.writeHead(302, { location: `http://target.test:${server.port}/robots.txt` });
      res.end();
    });
    behaviours.set('target.test', robots200('User-agent: *\nDisallow: /moved-rules\n'));
    const padding = `# ${'x'.repeat(1022)}\n`.repeat(2048); // 2 MiB of comments
    behaviours.set(
      'huge.test',
      robots200(`User-agent: *\nDisallow: /early\n${padding}Disallow: /late\n`),
    );
    const binary = Buffer.alloc(64 * 1024);
    for (let i = 0; i < binary.length; i++) binary[i] = (i * 7919 + 13) % 256;
    behaviours.set(
      'binary.test',
      robots200(binary, { 'content-type': 'application/octet-stream' }),
    );
    behaviours.set('slow.test', (res) =>
      setTimeout(() => robots200('User-agent: *\nDisallow: /slow\n')(res, 0), 300),
    );
    behaviours.set('shared.test', robots200('User-agent: *\nDisallow: /shared\n'));
    behaviours.set(
      'maxage.test',
      robots200('User-agent: *\nDisallow: /m\n', { 'cache-control': 'public, max-age=60' }),
    );
    behaviours.set(
      'nostore.test',
      robots200('User-agent: *\nDisallow: /n\n', { 'cache-control': 'no-store' }),
    );
    behaviours.set(
      'longage.test',
      robots200('User-agent: *\nDisallow: /m\n', { 'cache-control': 'max-age=999999' }),
    );
  });

  afterAll(async () => {
    await fetcher.close();
    await server.close();
  });

  return {
    behaviours,
    get server() {
      return server;
    },
    get fetcher() {
      return fetcher;
    },
    origin: (host) => `http://${host}:${server.port}`,
    count,
  };
}
