/**
 * End-to-end check of the whole web: a small, independent crawler (robots-parser for the
 * rules, htmlparser2 for links, undici for HTTP) crawls the real server and must reach
 * exactly the ground truth the model predicts — and the server log must show it.
 */
import robotsParser from 'robots-parser';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestWebAgent } from './agent.js';
import { readPage } from './page-reader.js';
import { startTestWeb, type TestWeb } from './server.js';

const TOKEN = 'shardline';
const BODY_CAP = 1024 * 1024;
const ROBOTS_CAP = 500 * 1024;

let web: TestWeb;
const agent = createTestWebAgent({ connections: 4 });

beforeAll(async () => {
  web = await startTestWeb({
    hosts: 40,
    seed: 11,
    pagesPerHost: [4, 12],
    slowMs: 100,
    dripMs: 300,
    hugeBodyBytes: 4 * 1024 * 1024,
    // Far past ROBOTS_TIMEOUT_MS: the timeout variant is unreachable however loaded the machine.
    robotsDelayMs: 10_000,
    failFirstCount: 2,
    retryAfterS: 0,
  });
});
afterAll(async () => {
  await web?.close();
  await agent.close();
});

interface Fetched {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

async function fetchCapped(url: string, cap: number, timeoutMs: number): Promise<Fetched> {
  const res = await request(url, {
    dispatcher: agent,
    headers: { 'user-agent': `${TOKEN}/0.1` },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    chunks.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size >= cap) break; // leaving the loop destroys the body: the rest is never read
  }
  return {
    status: res.statusCode,
    headers: res.headers,
    body: Buffer.concat(chunks).subarray(0, cap),
  };
}

type Allow = (url: string) => boolean;

/**
 * How long a robots.txt may take. Generous: at 500 ms a loaded CI machine turned answered
 * robots.txt files into "unreachable", dropping whole sites from the crawl.
 */
const ROBOTS_TIMEOUT_MS = 4_000;

/** Retries of a 5xx robots.txt before the host counts as disallowed. */
const ROBOTS_RETRIES = 2;

async function robotsFor(origin: string, retries = ROBOTS_RETRIES): Promise<Allow> {
  let url = `${origin}/robots.txt`;
  try {
    for (let hop = 0; hop < 5; hop++) {
      const res = await fetchCapped(url, 3 * 1024 * 1024, ROBOTS_TIMEOUT_MS);
      if (res.status >= 300 && res.status < 400) {
        url = new URL(String(res.headers.location), url).href;
        continue;
      }
      // 5xx: disallow all until retried (RFC 9309 §2.3.1.4).
      if (res.status >= 500) return retries > 0 ? robotsFor(origin, retries - 1) : () => false;
      if (res.status >= 400) return () => true;
      const rules = robotsParser(url, res.body.subarray(0, ROBOTS_CAP).toString('utf8'));
      return (u) => rules.isAllowed(u, TOKEN) !== false;
    }
    return () => false;
  } catch {
    return () => false; // unreachable (the timeout variant): disallow all
  }
}

async function crawl(seeds: string[]): Promise<Set<string>> {
  const robots = new Map<string, Promise<Allow>>();
  const seen = new Set<string>(seeds);
  const queue = [...seeds];
  const fetched = new Set<string>();
  const visit = async (href: string): Promise<void> => {
    const url = new URL(href);
    let allow = robots.get(url.origin);
    if (allow === undefined) {
      allow = robotsFor(url.origin);
      robots.set(url.origin, allow);
    }
    if (!(await allow)(href)) return;
    fetched.add(href);
    let res: Fetched | undefined;
    for (let attempt = 0; attempt < 4; attempt++) {
      res = await fetchCapped(href, BODY_CAP, 5_000);
      if (res.status !== 429 && res.status !== 503) break;
    }
    if (res === undefined) return;
    const found: string[] = [];
    if (res.status >= 300 && res.status < 400 && res.headers.location) {
      found.push(String(res.headers.location));
    } else if (res.status === 200 && String(res.headers['content-type']).startsWith('text/html')) {
      const page = readPage(String(res.headers['content-type']), res.body);
      const nofollow = /nofollow|none/i.test(
        `${page.metaRobots ?? ''} ${res.headers['x-robots-tag'] ?? ''}`,
      );
      if (!nofollow) {
        for (const link of page.links) {
          if (!/(^|\s)nofollow(\s|$)/i.test(link.rel ?? '')) found.push(link.href);
        }
      }
      const base = page.baseHref === undefined ? href : new URL(page.baseHref, href).href;
      found.splice(0, found.length, ...found.map((h) => new URL(h, base).href));
    }
    for (const link of found) {
      const next = new URL(link, href);
      next.hash = '';
      if (!next.hostname.endsWith('.test') || seen.has(next.href)) continue;
      seen.add(next.href);
      queue.push(next.href);
    }
  };
  let inFlight = 0;
  const workers = Array.from({ length: 16 }, async () => {
    for (;;) {
      const next = queue.shift();
      if (next === undefined) {
        if (inFlight === 0) return;
        await new Promise((r) => setTimeout(r, 5));
        continue;
      }
      inFlight++;
      try {
        await visit(next);
      } finally {
        inFlight--;
      }
    }
  });
  await Promise.all(workers);
  return fetched;
}

describe('an independent crawler of the served web', () => {
  it('fetches exactly the ground truth: allowed and reachable, never disallowed, nofollow or trap URLs', async () => {
    const truth = web.groundTruth({ userAgentToken: TOKEN });
    const fetched = await crawl(web.seeds);
    expect([...fetched].sort()).toEqual([...truth.reachableAllowed].sort());

    const counts = web.fetchCounts();
    for (const url of truth.disallowedLinked) expect(counts.has(url), url).toBe(false);
    for (const url of truth.notFollowed) expect(counts.has(url), url).toBe(false);
    for (const url of web.traps) expect(counts.has(url), url).toBe(false);
    // The server saw every expected URL; the fail-first pages three times (2 failures + 1).
    for (const url of truth.reachableAllowed) {
      const retried = /\/retry\/(429|503)$/.test(url);
      expect(counts.get(url), url).toBe(retried ? 3 : 1);
    }
  });
});
