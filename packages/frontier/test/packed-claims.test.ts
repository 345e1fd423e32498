import { Redis } from 'ioredis';
import { startRedis } from '../../../test/helpers/redis.js';
import { describePackedClaims } from './packed-claims-suite.js';

describePackedClaims('a single redis-server', async () => {
  const server = await startRedis();
  return {
    connect: () => new Redis(server.port, server.host, { maxRetriesPerRequest: 3 }),
    stop: () => server.stop(),
  };
});
