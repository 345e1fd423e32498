/**
 * What the Fetcher tests (fetcher-*.test.ts) share: the fetcher most of them use, with a
 * 1 MiB body cap so size limits bite without megabytes of traffic, and a port nobody listens on.
 */
import { createServer } from 'node:net';
import { Fetcher } from '../src/fetcher.js';
import { type Route, testDns } from './fixtures/test-server.js';

export const MiB = 1024 * 1024;
/** The User-Agent `standardFetcher()` sends. */
export const UA = 'shardline/0.1 (+https://example.com/bot)';

/** A fetcher with a full product token (so a real User-Agent) and a 1 MiB body cap. */
export function standardFetcher(): Fetcher {
  return new Fetcher({
    dns: testDns(),
    productToken: 'shardline',
    productVersion: '0.1',
    contactUrl: 'https://example.com/bot',
    maxBodyBytes: MiB,
  });
}

/** `/page` of every Fetcher test server: a small HTML page with one link. */
export const linkPage: Route = (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
  res.end('<html><body><a href="/x">x</a></body></html>');
};

/** A loopback port that was free a moment ago: connecting to it is refused. */
export async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}
