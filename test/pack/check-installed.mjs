/**
 * Runs with plain `node` inside the empty project that test/pack.test.ts installs the packed
 * tarballs into: imports each package as a user would (its compiled dist/) and uses it once.
 * REDIS_URL names a throwaway redis-server. Prints one JSON object on stdout.
 */

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadApiConfig, StaticClusterView, startApi } from '@shardline/api';
import { CrawlerPod, loadConfig } from '@shardline/crawler';
import { DnsCache } from '@shardline/dns';
import { RedisFrontier } from '@shardline/frontier';
import { MembershipReader } from '@shardline/membership';
import { HashRing } from '@shardline/ring';
import { RobotsTxt } from '@shardline/robots';
import { canonicalize, domainKey } from '@shardline/url';
import { readRecordAt, ThreadedWarcWriter } from '@shardline/warc';
import { Redis } from 'ioredis';
import { pino } from 'pino';

const out = {};
const redisUrl = process.env.REDIS_URL;

const canonical = canonicalize('HTTP://News.BBC.co.uk:80/a/./b/../c?utm_source=x&id=1#top');
out.url = { url: canonical.url, domain: domainKey(canonical.host) };

const ring = await HashRing.create(['a', 'b', 'c']);
out.ringOwner = ring.owner(out.url.domain);

const robots = RobotsTxt.parse('User-agent: *\nDisallow: /private\nCrawl-delay: 2\n');
out.robots = {
  publicAllowed: robots.isAllowed('https://example.com/public', 'shardline'),
  privateAllowed: robots.isAllowed('https://example.com/private/x', 'shardline'),
  crawlDelayMs: robots.crawlDelayMs('shardline'),
};

// The WARC writer's worker thread is loaded from the package's dist/ beside its main module.
const warcDir = mkdtempSync(join(tmpdir(), 'pack-warc-'));
const warc = await ThreadedWarcWriter.open({ dir: warcDir, pod: 'pack-pod' });
const at = await warc.write({
  url: 'http://site1.test/page',
  sentAtMs: Date.now(),
  request: { headers: [] },
  response: { status: 200, statusText: 'OK', headers: [], body: Buffer.from('<p>hi</p>') },
});
await warc.close();
out.warc = {
  files: readdirSync(warcDir).length,
  type: (await readRecordAt(join(warcDir, at.file), at.offset)).type,
};
rmSync(warcDir, { recursive: true, force: true });

const dns = new DnsCache({ overrides: ['*.test:127.0.0.1'] });
out.dns = (await dns.resolve('site1.test')).map((a) => a.address);

// The frontier's Lua scripts are read from the package's lua/ beside dist/: a claim proves
// they were packed.
const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
const frontier = new RedisFrontier({ redis, prefix: 'pack', ownerOf: () => 'pod-a' });
const enqueued = await frontier.enqueue(['https://site1.test/page']);
const claim = await frontier.claim({ pod: 'pod-a', max: 1 });
out.frontier = { queued: enqueued.queued, claimed: claim.leases.map((l) => l.url) };

const config = loadConfig({ REDIS_URL: redisUrl, POD_ID: 'pack-pod', MIN_DELAY_MS: '250' });
const pod = new CrawlerPod({ ...config.pod, redis, logger: pino({ level: 'silent' }) });
out.crawler = { podId: config.pod.podId, minDelayMs: config.pod.minDelayMs };
// Starting the pod joins the membership through its Lua scripts (membership's lua/, which
// includes the frontier's fragments): the registry then lists it.
await pod.start();
out.members = (await new MembershipReader(redis).members()).map((m) => m.id);

// The API serves its dashboard from the package's public/ beside dist/.
const api = await startApi(
  loadApiConfig({ REDIS_URL: redisUrl, API_HOST: '127.0.0.1', API_PORT: '0', KEY_PREFIX: 'pack' }),
  new StaticClusterView(['pod-a']),
);
const health = await fetch(`${api.url}/healthz`);
const dashboard = await fetch(`${api.url}/`);
out.api = {
  health: health.status,
  dashboard: dashboard.status,
  dashboardIsHtml: (await dashboard.text()).includes('<html'),
};
await api.close();
await pod.stop();
await redis.quit();
process.stdout.write(`${JSON.stringify(out)}\n`);
