import { Cluster } from 'ioredis';
import { startRedisCluster } from '../../../test/helpers/redis.js';
import { describePackedDomains } from './packed-domains-suite.js';

describePackedDomains('a three-master Redis Cluster', async () => {
  const cluster = await startRedisCluster(3);
  return {
    connect: () => new Cluster(cluster.nodes, { redisOptions: { maxRetriesPerRequest: 3 } }),
    stop: () => cluster.stop(),
  };
});
