/**
 * The robots.txt each host serves. The texts are fixed per variant (the interesting
 * paths exist on every host: `/p/1` … and the `/private/` trap pages).
 */
import type { RobotsBehaviour } from './behaviours.js';
import { Random } from './random.js';
import { ROBOTS_PARSE_LIMIT_BYTES } from './robots-rules.js';

/** What `/robots.txt` answers. */
export type RobotsResponse =
  | { kind: 'body'; body: Buffer; contentType: string }
  | { kind: 'status'; status: 404 | 500 }
  | { kind: 'timeout' }
  | { kind: 'redirect'; status: 301; location: string; target: Buffer }
  /** 503 to the host's first robots.txt request, `body` (200) to every later one. */
  | { kind: 'fail-first'; status: 503; body: Buffer; contentType: string };

/** Path the `robots-redirect` variant redirects to. */
export const REAL_ROBOTS_PATH = '/robots-real.txt';

const PLAIN = 'User-agent: *\nAllow: /\n';

const DISALLOW = `# Rules for a named crawler and for everyone else.
User-agent: otherbot
Disallow: /

User-agent: shardline
Disallow: /p/3
Disallow: /private/

User-agent: *
Disallow: /p/2
Disallow: /private/
`;

// /p/1 is allowed (longer Allow), /p/10…/p/19 and /p/1?… are not; every URL with a query is
// disallowed; /p/4 is disallowed but /p/40 is not; /p/5 via a rule written without a space.
const WILDCARD = `User-agent: *
Allow: /p/1$
Disallow: /p/1
DISALLOW: /*?
Disallow: /*/4$
disallow:/p/5 # no space, lower case
Disallow: /*.pdf$
Disallow: /private/
`;

const CRAWL_DELAY = `User-agent: *
Crawl-delay: 2
Disallow: /private/
`;

const REAL_ROBOTS = `User-agent: *
Disallow: /p/2
Disallow: /private/
`;

let hugeRobots: Buffer | undefined;

/**
 * 2 MiB: a real rule, then comment filler past the 500 KiB parse limit, then a
 * `Disallow: /` that a conforming crawler never reads. Built once and shared.
 */
export function hugeRobotsBody(): Buffer {
  if (hugeRobots) return hugeRobots;
  const head = 'User-agent: *\nDisallow: /p/2\nDisallow: /private/\n';
  const filler = '# filler line that keeps this robots.txt well past the parse limit ....\n';
  const parts = [head];
  let size = head.length;
  while (size < ROBOTS_PARSE_LIMIT_BYTES + 100 * 1024) {
    parts.push(filler);
    size += filler.length;
  }
  parts.push('Disallow: /\n');
  size += 'Disallow: /\n'.length;
  while (size < 2 * 1024 * 1024) {
    parts.push(filler);
    size += filler.length;
  }
  hugeRobots = Buffer.from(parts.join(''), 'utf8');
  return hugeRobots;
}

/** Bytes with no line that could parse as a rule: high bytes, NULs and the odd newline. */
function binaryGarbage(seed: number): Buffer {
  const rng = new Random(seed);
  const out = Buffer.alloc(4096);
  for (let i = 0; i < out.length; i++) {
    out[i] = rng.chance(0.02) ? 0x0a : rng.chance(0.1) ? 0 : rng.int(0x80, 0xff);
  }
  return out;
}

/** The robots response for a host with the given variant (or none: plain allow-all). */
export function robotsResponse(variant: RobotsBehaviour | undefined, seed: number): RobotsResponse {
  const text = (s: string): RobotsResponse => ({
    kind: 'body',
    body: Buffer.from(s, 'utf8'),
    contentType: 'text/plain; charset=utf-8',
  });
  switch (variant) {
    case undefined:
      return text(PLAIN);
    case 'robots-disallow':
      return text(DISALLOW);
    case 'robots-wildcard':
      return text(WILDCARD);
    case 'robots-crawl-delay':
      return text(CRAWL_DELAY);
    case 'robots-404':
      return { kind: 'status', status: 404 };
    case 'robots-500':
      return { kind: 'status', status: 500 };
    case 'robots-timeout':
      return { kind: 'timeout' };
    case 'robots-huge':
      return { kind: 'body', body: hugeRobotsBody(), contentType: 'text/plain' };
    case 'robots-binary':
      return { kind: 'body', body: binaryGarbage(seed), contentType: 'application/octet-stream' };
    case 'robots-redirect':
      return {
        kind: 'redirect',
        status: 301,
        location: REAL_ROBOTS_PATH,
        target: Buffer.from(REAL_ROBOTS, 'utf8'),
      };
    case 'robots-503-first':
      return {
        kind: 'fail-first',
        status: 503,
        body: Buffer.from(REAL_ROBOTS, 'utf8'),
        contentType: 'text/plain; charset=utf-8',
      };
  }
}
