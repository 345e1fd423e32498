/**
 * A loopback site whose front page links to three slow pages (`/slow/1…3`), answered once
 * `slow()` resolves: a crawl of it holds three leases until then, which tests of concurrent
 * processes need. Every request but robots.txt (a 404) is recorded in `requests`.
 */
import { type HtmlSite, startHtmlSite } from './html-site.js';

export type SlowPagesSite = HtmlSite;

export function startSlowPagesSite(slow: () => Promise<unknown>): Promise<SlowPagesSite> {
  return startHtmlSite(
    (path) =>
      path === '/'
        ? [1, 2, 3].map((n) => `<a href="/slow/${n}">${n}</a>`).join(' ')
        : '<p>slow</p>',
    (path) => (path === '/' ? Promise.resolve() : slow()),
  );
}

/** A promise of `ms` milliseconds. */
export const after = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The `crawl` flags that reach `site` as `host` on loopback with its three slow pages out at
 * once: no delay, three per host, the override, private addresses allowed.
 */
export function slowSiteFlags(site: SlowPagesSite, host = 'site.test'): string[] {
  return [
    '--min-delay-ms',
    '0',
    '--per-host-concurrency',
    '3',
    '--resolve',
    `${host}:${site.port}:127.0.0.1`,
    '--allow-private-addresses',
  ];
}
