/**
 * Runs one crawler pod from the environment (see config.ts): `node --import tsx
 * services/crawler/src/main.ts`. Needs REDIS_URL (the `shardline crawl` command starts an
 * embedded Redis when it is unset). SIGTERM / SIGINT stop it gracefully.
 */
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { loadConfig } from './config.js';
import { CrawlerPod } from './crawler-pod.js';

const config = loadConfig();
const logger = pino({ level: config.logLevel });
if (!config.redisUrl) {
  logger.fatal('REDIS_URL is not set (shardline crawl starts an embedded Redis instead)');
  process.exit(2);
}
const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
const pod = new CrawlerPod({ ...config.pod, redis, logger });
let signals = 0;
const onSignal = (signal: NodeJS.Signals) => {
  signals += 1;
  if (signals > 1) process.exit(130);
  logger.info({ signal }, 'stopping');
  void pod.stop();
};
process.on('SIGTERM', onSignal);
process.on('SIGINT', onSignal);
await pod.start();
await pod.done;
await redis.quit();
