/**
 * A crawl that exits when idle folds its finished domains first. A small finished domain is
 * folded into its archive field (~70 B instead of ~1.2 KB of keys) by the claim visit at the end
 * of its host's index pin (30 s by default); `--exit-when-idle` used to stop before those
 * visits, so every domain finished in the crawl's last 30 s — all of a short crawl's — stayed
 * live until a pod of the crawl ran again.
 */
import { RedisFrontier } from '@shardline/frontier';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { type HtmlSite, startHtmlSite } from './html-site.js';
import { runCliWith } from './run-cli-with.js';

const DOMAINS = ['a.test', 'b.test', 'c.test', 'd.test'];
let server: RedisServer;
let redis: Redis;
let site: HtmlSite;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
  site = await startHtmlSite(() => '<p>one page</p>');
});

afterAll(async () => {
  await site.close();
  await redis.quit();
  await server.stop();
});

it('--exit-when-idle folds the domains it finished before it exits', async () => {
  const crawl = await runCliWith(
    [
      'crawl',
      '--prefix',
      'fold',
      '--min-delay-ms',
      '0',
      '--allow-private-addresses',
      ...DOMAINS.flatMap((d) => ['--resolve', `${d}:${site.port}:127.0.0.1`]),
      '--exit-when-idle',
      '--idle-grace-ms',
      '300',
      ...DOMAINS.map((d) => `http://${d}:${site.port}/`),
    ],
    { env: { REDIS_URL: server.url }, killAfterMs: 60_000 },
  );
  expect(crawl.code).toBe(0);
  expect(JSON.parse(crawl.stdout.trim())).toMatchObject({ fetched: DOMAINS.length });
  const frontier = new RedisFrontier({ redis, prefix: 'fold', ownerOf: () => 'nobody' });
  for (const domain of DOMAINS) {
    expect(await frontier.inspector.domainStats(domain)).toMatchObject({
      fetched: 1,
      queued: 0,
      archived: true,
    });
  }
  // Nothing of them is left live: no domain is listed any more.
  expect(await frontier.inspector.listedDomainCount()).toBe(0);
}, 90_000);
