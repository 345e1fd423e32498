import { Cluster } from 'ioredis';
import { startRedisCluster } from '../../../test/helpers/redis.js';
import { describePackedClaims } from './packed-claims-suite.js';

describePackedClaims('a three-master Redis Cluster', async () => {
  const cluster = await startRedisCluster(3);
  return {
    connect: () => new Cluster(cluster.nodes, { redisOptions: { maxRetriesPerRequest: 3 } }),
    stop: () => cluster.stop(),
  };
});
