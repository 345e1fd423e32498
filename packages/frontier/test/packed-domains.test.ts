import { Redis } from 'ioredis';
import { startRedis } from '../../../test/helpers/redis.js';
import { describePackedDomains } from './packed-domains-suite.js';

describePackedDomains('a single redis-server', async () => {
  const server = await startRedis();
  return {
    connect: () => new Redis(server.port, server.host, { maxRetriesPerRequest: 3 }),
    stop: () => server.stop(),
  };
});
