/**
 * The pod process with nothing to do: loads every module `main.ts` loads and builds a pod
 * (frontier, fetcher, robots loader, gate) without starting it, then waits for SIGTERM. The
 * crawl bench reads its RSS to separate the runtime's share (tsx or not) from the crawl's.
 * Plain JavaScript importing `@shardline/crawler`: on plain node that is the compiled `dist/`,
 * under the bench's tsx runtime (`--conditions=@shardline/source`) the sources.
 */

import { CrawlerPod } from '@shardline/crawler';
import { Redis } from 'ioredis';
import { pino } from 'pino';

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:1', {
  maxRetriesPerRequest: null,
  lazyConnect: true,
});
const pod = new CrawlerPod({ redis, podId: 'idle', logger: pino({ level: 'warn' }) });
const keepAlive = setInterval(() => undefined, 1 << 30);
process.once('SIGTERM', () => {
  clearInterval(keepAlive);
  void pod.stop().then(() => redis.disconnect());
});
