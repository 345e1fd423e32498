/**
 * The supervisor of `shardline up` killed with SIGKILL (an OOM kill, `kill -9`) cannot stop its
 * pods. They used to crawl on as orphans that `down` no longer knew of. Each pod now sees its
 * supervisor's IPC channel close and stops as on SIGTERM: it leaves the registry gracefully.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MembershipKeys, MembershipReader } from '@shardline/membership';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { type RedisServer, startRedis } from '../../../test/helpers/redis.js';
import { type ClusterFile, isAlive } from '../src/local-cluster/control-file.js';
import { runCliWith } from './run-cli-with.js';

let server: RedisServer;
let redis: Redis;
let dir: string;
const epochKey = new MembershipKeys('sl').epoch();
const pids: number[] = [];

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
  dir = mkdtempSync(join(tmpdir(), 'sl-orphans-'));
});

afterAll(async () => {
  for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  await redis.quit();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('pods stop and leave the registry when their supervisor is killed with SIGKILL', async () => {
  const up = await runCliWith([
    'up',
    '--pods',
    '2',
    '--detach',
    '--redis',
    server.url,
    '--data-dir',
    dir,
  ]);
  expect(up.code).toBe(0);
  const file = JSON.parse(readFileSync(join(dir, 'cluster.json'), 'utf8')) as ClusterFile;
  const podPids = file.pods.map((pod) => pod.pid!);
  pids.push(file.supervisorPid, ...podPids);
  const reader = new MembershipReader(redis);
  const alive = async () => (await reader.members()).filter((m) => m.alive).map((m) => m.id);
  expect(await alive()).toEqual(['local-0', 'local-1']);
  const epochBefore = Number(await redis.get(epochKey));

  process.kill(file.supervisorPid, 'SIGKILL');

  await vi.waitFor(() => expect(podPids.filter(isAlive)).toEqual([]), {
    timeout: 30_000,
    interval: 100,
  });
  // They left (a graceful stop), not merely went silent: no member is left to expire, and each
  // leave bumped the epoch.
  expect(await alive()).toEqual([]);
  expect(Number(await redis.get(epochKey))).toBeGreaterThanOrEqual(epochBefore + 2);
}, 90_000);
