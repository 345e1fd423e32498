/**
 * What the server saw of robots.txt requests in a crawl of the test web's default mix, for
 * a crawler that retries an unreachable robots.txt `maxRetries` times, `retryMs` apart:
 * once per reachable host, twice for `robots-503-first`, at least `maxRetries + 1` times for a
 * host whose robots.txt never answers (`robots-500`, `robots-timeout`: once the crawler gave
 * up, each further URL of the host claimed after the answer expired asks again); and no
 * request sooner than `retryMs` after the previous answer ended.
 */
import type { TestWeb } from '../web/index.js';

/** Server-side timestamps are taken on one clock; allow this much for their own jitter. */
const SLACK_MS = 25;

export function robotsRetryProblems(
  web: TestWeb,
  options: { retryMs: number; maxRetries: number },
): { wrongCounts: string[]; earlyRetries: string[]; variantsSeen: string[] } {
  const counts = web.robotsFetchCounts();
  const wrongCounts: string[] = [];
  const earlyRetries: string[] = [];
  const variantsSeen = new Set<string>();
  for (const host of web.model.hosts.values()) {
    const never = host.behaviours.some((b) => b === 'robots-500' || b === 'robots-timeout');
    const once = host.behaviours.includes('robots-503-first');
    for (const b of host.behaviours) if (b.startsWith('robots-')) variantsSeen.add(b);
    const expected = never ? options.maxRetries + 1 : once ? 2 : 1;
    const url = `${web.origin(host.name)}/robots.txt`;
    const got = counts.get(url) ?? 0;
    if (never ? got < expected : got !== expected) {
      wrongCounts.push(`${url}: ${got} (expected ${never ? 'at least ' : ''}${expected})`);
    }
    const asked = web.log.filter((e) => e.host === host.name && e.path === '/robots.txt');
    for (let i = 1; i < asked.length; i++) {
      const gap = asked[i]!.startMs - asked[i - 1]!.endMs;
      if (gap < options.retryMs - SLACK_MS)
        earlyRetries.push(`${host.name}: ${Math.round(gap)} ms`);
    }
  }
  return { wrongCounts, earlyRetries, variantsSeen: [...variantsSeen].sort() };
}
