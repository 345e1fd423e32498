/**
 * Issue 15, addresses and robots, with real loopback servers: a `--resolve host:addr` override
 * reaches only the ports of the host's seeds — a link, a redirect or a robots.txt redirect to
 * another port of the overridden (loopback) address must not reach it — and a robots.txt that
 * redirects to nowhere (a refused address, a name that does not resolve) counts as unavailable
 * (RFC 9309 §2.3.1.3: allow), with the reason recorded, instead of holding the host for hours.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { CrawlerPod } from '../src/index.js';

let redis: RedisServer;
let client: Redis;
let site: Server;
let secret: Server;
let sitePort: number;
let secretPort: number;
const siteLog: string[] = [];
const secretLog: string[] = [];

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  redis = await startRedis();
  client = new Redis(redis.url);
  // The "private service" on another port of the overridden address.
  secret = createServer((req, res) => {
    secretLog.push(`${req.headers.host}${req.url}`);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
  });
  secretPort = await listen(secret);
  site = createServer((req, res) => {
    const host = String(req.headers.host).split(':')[0];
    siteLog.push(`${host}${req.url}`);
    const other = (h: string, path: string) => `http://${h}:${secretPort}${path}`;
    if (req.url === '/robots.txt') {
      if (host === 'robots-port.test') {
        res.writeHead(301, { location: other('robots-port.test', '/robots.txt') }).end();
      } else if (host === 'robots-ip.test') {
        res.writeHead(301, { location: other('127.0.0.1', '/robots.txt') }).end();
      } else res.writeHead(404).end();
      return;
    }
    if (host === 'allowed.test' && req.url === '/') {
      const links = `<a href="${other('allowed.test', '/secret')}">s</a><a href="/go">go</a>`;
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body>${links}</body></html>`);
      return;
    }
    if (host === 'www.wild.test' && req.url === '/') {
      // Another host under the same wildcard, on the seed's port and on another one.
      const links = `<a href="http://blog.wild.test:${sitePort}/">b</a><a href="${other('blog.wild.test', '/secret')}">s</a>`;
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body>${links}</body></html>`);
      return;
    }
    if (host === 'allowed.test' && req.url === '/go') {
      res.writeHead(302, { location: other('allowed.test', '/redirected') }).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>ok</body></html>');
  });
  sitePort = await listen(site);
});

afterAll(async () => {
  client?.disconnect();
  await redis?.stop();
  await new Promise((r) => site?.close(r));
  await new Promise((r) => secret?.close(r));
});

/**
 * Crawls `hosts` (seeds `http://<host>:<site port>/`) to the end, each host overridden to
 * loopback unless `resolve` says otherwise.
 */
async function crawl(
  hosts: string[],
  prefix: string,
  resolve = hosts.map((h) => `${h}:127.0.0.1`),
): Promise<CrawlerPod> {
  const pod = new CrawlerPod({
    redis: client,
    podId: 'ports',
    prefix,
    assignment: { ownerOf: () => 'ports', onChange: () => () => undefined },
    resolve,
    minDelayMs: 10,
    maxRetries: 0,
    exitWhenIdle: { graceMs: 300 },
    logger: pino({ level: 'silent' }),
  });
  await pod.seed(hosts.map((h) => `http://${h}:${sitePort}/`));
  await pod.start();
  // Promptly: a host held for an "unreachable" robots.txt would keep the pod for an hour.
  await Promise.race([
    pod.done,
    new Promise((_, reject) => setTimeout(() => reject(new Error('pod did not finish')), 30_000)),
  ]);
  return pod;
}

describe('--resolve overrides and robots.txt redirects', () => {
  it('a port-less override reaches the ports of its seeds only: links and redirects elsewhere are refused', async () => {
    const pod = await crawl(['allowed.test'], 'op1');
    expect(secretLog).toEqual([]);
    expect(siteLog).toContain('allowed.test/');
    expect(siteLog).toContain('allowed.test/go');
    const dead = await pod.frontier.inspector.deadLetters('allowed.test', { limit: 10 });
    expect(dead.map((d) => d.url).sort()).toEqual([
      `http://allowed.test:${secretPort}/redirected`,
      `http://allowed.test:${secretPort}/secret`,
    ]);
  }, 60_000);

  it("a port-less wildcard reaches every host under it on its seeds' ports, and says which port it lacks", async () => {
    const pod = await crawl(['www.wild.test'], 'op3', ['*.wild.test:127.0.0.1']);
    expect(siteLog).toContain('www.wild.test/');
    // Not seeded, but under the seed's rule and on its port: the override applies.
    expect(siteLog).toContain('blog.wild.test/');
    expect(secretLog).toEqual([]);
    // (`.test` is no public suffix: each host is its own domain.)
    const dead = await pod.frontier.inspector.deadLetters('blog.wild.test', { limit: 10 });
    expect(dead.map((d) => d.url)).toEqual([`http://blog.wild.test:${secretPort}/secret`]);
    // The result (and the log line) says what the override lacks.
    const results = JSON.stringify(await client.xrange(pod.resultsStreamKey, '-', '+'));
    expect(results).toContain(
      `--resolve *.wild.test:127.0.0.1 reaches only its seeds' ports, not ${secretPort}: name the port (--resolve '*.wild.test:${secretPort}:127.0.0.1') or seed a URL on it`,
    );
  }, 60_000);

  it('a robots.txt that redirects to nowhere is unavailable: the host is crawled at once, why is recorded', async () => {
    const hosts = ['robots-port.test', 'robots-ip.test'];
    const pod = await crawl(hosts, 'op2');
    expect(secretLog).toEqual([]);
    for (const h of hosts) expect(siteLog).toContain(`${h}/`);
    const stats = pod.stats();
    expect(stats.robotsDeferred).toBe(0);
    expect(stats.robotsDisallowed).toBe(0);
    const results = JSON.stringify(await client.xrange(pod.resultsStreamKey, '-', '+'));
    expect(results).toContain(`robots.txt redirects to http://127.0.0.1:${secretPort}/robots.txt`);
    expect(results).toContain(
      `robots.txt redirects to http://robots-port.test:${secretPort}/robots.txt`,
    );
  }, 60_000);
});
