/**
 * `npm run bench -- robots`: isAllowed checks per second on a generated, realistic
 * 200-rule robots.txt (several named groups, a large `*` group with wildcards, `$` anchors
 * and query patterns), against bare robots-parser answering the same questions in the
 * same process. Also reports parse time and how many answers differ (the wrapper's fixes).
 */
import robotsParser from 'robots-parser';
import { RobotsTxt } from '../src/index.js';

const URLS = 5_000;
const ROUNDS = 7;
const MIN_ROUND_MS = 300;

/** Mulberry32: a seeded PRNG so every run measures the same file and URLs. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = prng(7);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const WORDS = [
  'admin',
  'search',
  'cart',
  'checkout',
  'account',
  'api',
  'static',
  'images',
  'blog',
  'news',
  'tag',
  'user',
  'print',
  'feeds',
  'wp-json',
  'private',
  'tmp',
  'cgi-bin',
  'login',
  'café',
];

function patternFor(i: number): string {
  const a = pick(WORDS);
  const b = pick(WORDS);
  switch (i % 8) {
    case 0:
      return `/${a}/`;
    case 1:
      return `/${a}/*/${b}`;
    case 2:
      return `/*.${pick(['pdf', 'zip', 'json', 'xml'])}$`;
    case 3:
      return `/*?${pick(['sessionid', 'sort', 'replytocom', 'utm_source'])}=`;
    case 4:
      return `/${a}/${b}$`;
    case 5:
      return `/${a}-${i}/`;
    case 6:
      return `/${a}/${b}/*/print`;
    default:
      return `/${a}?${b}=`;
  }
}

function buildRobots(): string {
  const lines = ['# generated benchmark robots.txt', 'Sitemap: https://bench.test/sitemap.xml', ''];
  let rules = 0;
  const group = (agents: string[], count: number) => {
    for (const agent of agents) lines.push(`User-agent: ${agent}`);
    // Distinct patterns, as in a real file (and so our de-duplication gains nothing).
    const seen = new Set<string>();
    for (let i = 0; i < count; i++, rules++) {
      let pattern = patternFor(rules);
      for (let salt = 1; seen.has(pattern); salt++) pattern = patternFor(rules + salt);
      seen.add(pattern);
      lines.push(`${random() < 0.2 ? 'Allow' : 'Disallow'}: ${pattern}`);
    }
    lines.push('');
  };
  group(['Googlebot', 'Bingbot'], 20);
  group(['AhrefsBot'], 1);
  group(['shardline'], 30);
  group(['*'], 149);
  if (rules !== 200) throw new Error(`expected 200 rules, built ${rules}`);
  return lines.join('\n');
}

function buildUrls(): string[] {
  const urls: string[] = [];
  for (let i = 0; i < URLS; i++) {
    const depth = 1 + Math.floor(random() * 4);
    const segments = Array.from({ length: depth }, () =>
      random() < 0.7 ? pick(WORDS) : `item-${Math.floor(random() * 1000)}`,
    );
    let path = `/${segments.join('/')}`;
    if (random() < 0.2) path += pick(['.pdf', '.html', '.json', '']);
    if (random() < 0.3)
      path += `?${pick(['sort', 'sessionid', 'page', 'q'])}=${Math.floor(random() * 100)}`;
    urls.push(`https://bench.test${path}`);
  }
  return urls;
}

const body = buildRobots();
const urls = buildUrls();
const agents = ['shardline/0.1 (+https://example.com/bot)', 'Googlebot', 'SomeOtherBot/2.0'];
// robots-parser only cuts the UA at "/", so give it the bare token where ours extracts it.
const bareAgents = ['shardline', 'Googlebot', 'SomeOtherBot/2.0'];

const ours = RobotsTxt.parse(body);
const bare = robotsParser('https://bench.test/robots.txt', body);

type Check = (url: string, agentIndex: number) => boolean;

/** Checks per second of one round of at least MIN_ROUND_MS over all URLs. */
function round(check: Check): number {
  let sink = 0;
  let checks = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < MIN_ROUND_MS) {
    for (let i = 0; i < urls.length; i++) if (check(urls[i]!, i % agents.length)) sink++;
    checks += urls.length;
    elapsed = performance.now() - start;
  }
  if (sink < 0) console.log(sink);
  return (checks / elapsed) * 1000;
}

/** Best round of each, the two interleaved (alternating which goes first) so neither gets the warmer JIT or GC state. */
function rates(a: Check, b: Check): [number, number] {
  let bestA = 0;
  let bestB = 0;
  for (let r = 0; r < ROUNDS; r++) {
    if (r % 2 === 0) {
      bestA = Math.max(bestA, round(a));
      bestB = Math.max(bestB, round(b));
    } else {
      bestB = Math.max(bestB, round(b));
      bestA = Math.max(bestA, round(a));
    }
  }
  return [bestA, bestB];
}

function parseMs(parse: () => unknown): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 50; i++) {
    const start = performance.now();
    parse();
    best = Math.min(best, performance.now() - start);
  }
  return best;
}

let differ = 0;
for (let i = 0; i < urls.length; i++) {
  if (
    ours.isAllowed(urls[i]!, agents[i % 3]!) !==
    (bare.isAllowed(urls[i]!, bareAgents[i % 3]!) !== false)
  )
    differ++;
}

const [bareRate, oursRate] = rates(
  (url, a) => bare.isAllowed(url, bareAgents[a]!) !== false,
  (url, a) => ours.isAllowed(url, agents[a]!),
);
const bareParse = parseMs(() => robotsParser('https://bench.test/robots.txt', body));
const oursParse = parseMs(() => RobotsTxt.parse(body));
const json = JSON.stringify(ours);
const fromJsonMs = parseMs(() => RobotsTxt.fromJSON(JSON.parse(json)));

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const kept = ours.toJSON().groups.reduce((n, g) => n + g.allow.length + g.disallow.length, 0);
console.log(`robots.txt: 200 rules in 4 groups, ${body.length} bytes; ${URLS} URLs × 3 agents`);
console.log(`rules kept after per-group de-duplication: ${kept}`);
console.log(`isAllowed   bare robots-parser  ${fmt(bareRate)} checks/s   (baseline)`);
console.log(
  `isAllowed   @shardline/robots   ${fmt(oursRate)} checks/s   ratio ${(oursRate / bareRate).toFixed(2)}×`,
);
console.log(`parse       bare robots-parser  ${bareParse.toFixed(3)} ms`);
console.log(
  `parse       @shardline/robots   ${oursParse.toFixed(3)} ms   ratio ${(oursParse / bareParse).toFixed(2)}× the time`,
);
console.log(
  `fromJSON    @shardline/robots   ${fromJsonMs.toFixed(3)} ms   (JSON ${json.length} bytes)`,
);
console.log(`answers that differ from bare robots-parser: ${differ} of ${URLS}`);
