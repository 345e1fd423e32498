/**
 * A loopback site for CLI tests: robots.txt is a 404, every other path is the HTML `page`
 * gives for it, answered once `ready(path)` resolves (at once by default): a test holds a page
 * until what it needs has happened, instead of guessing how long that takes under load. Each
 * request but robots.txt is recorded in `requests`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HtmlSite {
  port: number;
  requests: string[];
  close(): Promise<void>;
}

export async function startHtmlSite(
  page: (path: string) => string,
  ready: (path: string) => Promise<unknown> = () => Promise.resolve(),
): Promise<HtmlSite> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const path = req.url ?? '';
    if (path === '/robots.txt') {
      res.writeHead(404).end();
      return;
    }
    requests.push(path);
    void ready(path).then(() =>
      res.writeHead(200, { 'content-type': 'text/html' }).end(page(path)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
