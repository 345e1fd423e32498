/**
 * A loopback site whose front page links to three slow pages (`/slow/1…3`, each answered after
 * `slowMs`): a crawl of it holds three leases for that long, which tests of concurrent processes
 * need. Every request but robots.txt (a 404) is recorded in `requests`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SlowPagesSite {
  port: number;
  requests: string[];
  close(): Promise<void>;
}

export async function startSlowPagesSite(slowMs: number): Promise<SlowPagesSite> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '';
    if (path === '/robots.txt') {
      res.writeHead(404).end();
      return;
    }
    requests.push(path);
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end([1, 2, 3].map((n) => `<a href="/slow/${n}">${n}</a>`).join(' '));
      return;
    }
    setTimeout(
      () => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>slow</p>'),
      slowMs,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
