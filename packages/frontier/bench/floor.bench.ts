/**
 * The floor under the frontier's claim+complete on one Redis core: what a claim and a
 * completion cost when they do only the per-URL state work no layout can skip, in Lua, on
 * hosts of one URL each (the wide crawl's shape) — against the frontier's own claim+complete
 * on the same server, same run (the baseline).
 *
 * The minimal state per URL, modelled on the frontier's (packages/frontier/README.md): the
 * host's hash (queue field, next-allowed time, in flight, seq, lease counter), the lease
 * (a field with its deadline, holder and entry, and a deadline entry in a ZSET so it can be
 * reaped), the domain's counters, and the host's entry in its pod's due index (re-scored at
 * the claim, removed at the completion). Claim: 1 `TIME`, 1 `HMGET`, 2 `HSET`, 1 `ZADD`,
 * 1 `HINCRBY`, 1 `ZADD` (7 commands); complete: 1 `HMGET`, 1 `HDEL`, 1 `ZREM`, 1 `HSET`,
 * 1 `HINCRBY`, 1 `ZREM` (6). Two shapes:
 *
 * - one host per script call (the frontier's shape: every host is its own Cluster slot);
 * - `BATCH` hosts per script call, their keys under one hash tag (a bucket of domains in one
 *   slot: the shape the wide-crawl issue's hint names).
 *
 * Then a layout the frontier does not have (`bucket-layout.ts`): `BATCH` one-URL domains kept
 * whole as records of their bucket's hash, with the bucket's own due set and counters (one
 * slot, Cluster-legal), claimed and completed a bucket per call with variadic commands.
 *
 * Prints Redis CPU (`INFO cpu`) per claimed+completed URL and URLs per Redis CPU-second, the
 * frontier's scripts sent both as EVALSHA and as FCALLs of its function library (the default);
 * then what defining the included helpers costs the frontier's main scripts on every EVALSHA
 * (what the library saves): each script's `--@include`s followed by `return 1`, against a bare
 * `return 1`, pipelined.
 *
 *   npm run bench -- frontier/bench/floor          (20,000 hosts per shape)
 *   BENCH_FLOOR_HOSTS=100000 npm run bench -- frontier/bench/floor
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startRedis } from '../../../test/helpers/redis.js';
import { startCpuWindow } from '../../../test/helpers/redis-cpu.js';
import { RedisFrontier } from '../src/index.js';
import { expand, FRONTIER_LUA_INCLUDES } from '../src/lua-scripts.js';
import { envInt } from './bench-env.js';
import { claimCompleteInBuckets, siteUrl } from './bucket-layout.js';
import { claimAll } from './claim-loops.js';
import { usedMemory } from './redis-memory.js';

const HOSTS = envInt('BENCH_FLOOR_HOSTS', 20_000, 1000, 10_000_000);
/** Hosts per script call in the batched shape. */
const BATCH = 100;
/** Script calls per pipeline (both shapes, so that request handling is amortised alike). */
const PIPELINE = 100;

/** KEYS: due index; ARGV: pod, lease ms, then per host: host hash, domain hash, member. */
const CLAIM = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local out = {}
for i = 3, #ARGV, 3 do
  local hk, dk, member = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local v = redis.call('HMGET', hk, 'q', 'n', 'f', 'seq', 'id', 'Q')
  local q, n, f = tonumber(v[1]) or 0, tonumber(v[2]) or 0, tonumber(v[3]) or 0
  if q > 0 and f < 1 and n <= now and v[6] then
    local id = (tonumber(v[5]) or 0) + 1
    local deadline = now + tonumber(ARGV[2])
    redis.call('HSET', hk, 'L' .. id, deadline .. ',' .. ARGV[1] .. ',' .. now .. ',' .. v[6])
    redis.call('HSET', hk, 'q', q - 1, 'f', f + 1, 'n', now, 'seq', (tonumber(v[4]) or 0) + 1, 'id', id, 'Q', '')
    redis.call('ZADD', hk .. ':D', deadline, id)
    redis.call('HINCRBY', dk, 'claimed', 1)
    redis.call('ZADD', KEYS[1], deadline, member)
    out[#out + 1] = hk .. '/' .. id
  end
end
return out
`;

/** KEYS: due index; ARGV: per lease: host hash, domain hash, member, lease id. */
const COMPLETE = `
local done = 0
for i = 1, #ARGV, 4 do
  local hk, dk, member, id = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  local v = redis.call('HMGET', hk, 'f', 'seq', 'L' .. id)
  if v[3] then
    redis.call('HDEL', hk, 'L' .. id)
    redis.call('ZREM', hk .. ':D', id)
    redis.call('HSET', hk, 'f', (tonumber(v[1]) or 1) - 1, 'seq', (tonumber(v[2]) or 0) + 1)
    redis.call('HINCRBY', dk, 'ok', 1)
    redis.call('ZREM', KEYS[1], member)
    done = done + 1
  end
end
return done
`;

/** Hosts of one URL each; `tagOf(i)` is the hash tag of host i's keys. */
async function seedHosts(redis: Redis, prefix: string, tagOf: (i: number) => string) {
  const hosts: { hk: string; dk: string; member: string }[] = [];
  for (let i = 0; i < HOSTS; i += 1000) {
    const pipe = redis.pipeline();
    for (let j = i; j < Math.min(HOSTS, i + 1000); j++) {
      const tag = tagOf(j);
      const h = {
        hk: `${prefix}:{${tag}}:h:www.site${j}.com`,
        dk: `${prefix}:{${tag}}:d:site${j}.com`,
        member: `site${j}.com/www.site${j}.com`,
      };
      pipe.hset(h.hk, 'q', 1, 'Q', `0|${siteUrl(j)}`);
      pipe.hset(h.dk, 'q', 1, 'enq', 1);
      hosts.push(h);
    }
    await pipe.exec();
  }
  return hosts;
}

/** Claims and completes every host, `perCall` hosts per script call; Redis CPU per URL. */
async function floor(redis: Redis, perCall: number): Promise<number> {
  await redis.flushall();
  const prefix = `floor${perCall}`;
  const hosts = await seedHosts(redis, prefix, (i) =>
    perCall === 1 ? `d:site${i}.com` : `b:${Math.floor(i / perCall)}`,
  );
  const due = `${prefix}:pod:{p:bench}:due`;
  const claimSha = (await redis.script('LOAD', CLAIM)) as string;
  const completeSha = (await redis.script('LOAD', COMPLETE)) as string;
  const window = await startCpuWindow(redis);
  for (let i = 0; i < hosts.length; i += perCall * PIPELINE) {
    const claims = redis.pipeline();
    const groups: (typeof hosts)[] = [];
    for (let j = i; j < Math.min(hosts.length, i + perCall * PIPELINE); j += perCall) {
      const group = hosts.slice(j, j + perCall);
      groups.push(group);
      claims.evalsha(
        claimSha,
        1,
        due,
        'bench',
        60_000,
        ...group.flatMap((h) => [h.hk, h.dk, h.member]),
      );
    }
    const replies = (await claims.exec()) ?? [];
    const completes = redis.pipeline();
    replies.forEach(([error, leases], g) => {
      if (error) throw error;
      const ids = leases as string[];
      if (ids.length !== groups[g]!.length) throw new Error('a seeded host was not claimed');
      completes.evalsha(
        completeSha,
        1,
        due,
        ...groups[g]!.flatMap((h, k) => [h.hk, h.dk, h.member, ids[k]!.split('/').pop()!]),
      );
    });
    for (const [error, done] of (await completes.exec()) ?? []) {
      if (error) throw error;
      if (Number(done) < 1) throw new Error('a lease was not completed');
    }
  }
  return (await window()).cpuUs / hosts.length;
}

/**
 * The frontier's own claim+complete of one URL on each of HOSTS domains: live domains sent as
 * EVALSHA (the baseline) or as FCALLs of the function library (the default), or packed ones
 * (`packNewDomains`, each claim unfolding its domain).
 */
async function frontierClaimComplete(
  redis: Redis,
  options: { packed: boolean; functions: boolean },
): Promise<number> {
  await redis.flushall();
  const frontier = new RedisFrontier({
    redis,
    ownerOf: () => 'bench',
    defaultDelayMs: 0,
    packNewDomains: options.packed,
    packAfterDomains: 0,
    redisFunctions: options.functions,
  });
  const urls = Array.from({ length: HOSTS }, (_, j) => siteUrl(j));
  for (let i = 0; i < urls.length; i += 1000) await frontier.enqueue(urls.slice(i, i + 1000));
  const window = await startCpuWindow(redis);
  await claimAll(frontier, HOSTS);
  return (await window()).cpuUs / HOSTS;
}

/** Redis CPU per call of `lua` (no keys, no arguments), pipelined like the runs above. */
async function perCallUs(redis: Redis, lua: string): Promise<number> {
  const sha = (await redis.script('LOAD', lua)) as string;
  const calls = 50_000;
  const window = await startCpuWindow(redis);
  for (let i = 0; i < calls; i += 500) {
    const pipe = redis.pipeline();
    for (let j = 0; j < 500; j++) pipe.evalsha(sha, 0);
    await pipe.exec();
  }
  return (await window()).cpuUs / calls;
}

/** A script's `--@include` lines expanded, then `return 1`: its helpers' definitions alone. */
function includesOnly(script: string): string {
  const source = readFileSync(join(FRONTIER_LUA_INCLUDES, '..', script), 'utf8');
  const includes = source.split('\n').filter((line) => line.startsWith('--@include'));
  return `${expand([FRONTIER_LUA_INCLUDES], includes.join('\n'))}\nreturn 1\n`;
}

const fmt = (x: number, digits = 0) =>
  x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const server = await startRedis();
const redis = new Redis(server.port, server.host);
try {
  const version = /redis_version:(\S+)/.exec(await redis.info('server'))?.[1];
  console.log(
    `redis ${version}; ${fmt(HOSTS)} hosts of one URL; Redis CPU per claimed+completed URL`,
  );
  // EVALSHA and the function library twice each, interleaved: the machine's drift shows.
  const evalRuns: number[] = [];
  const functionRuns: number[] = [];
  for (let i = 0; i < 2; i++) {
    evalRuns.push(await frontierClaimComplete(redis, { packed: false, functions: false }));
    functionRuns.push(await frontierClaimComplete(redis, { packed: false, functions: true }));
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const baseline = mean(evalRuns);
  const rows: [string, number][] = [
    ...evalRuns.map((us, i): [string, number] => [`frontier, EVALSHA, run ${i + 1}`, us]),
    ['frontier, EVALSHA: mean (baseline)', baseline],
    ...functionRuns.map((us, i): [string, number] => [
      `frontier, FCALL (library), run ${i + 1}`,
      us,
    ]),
    ['frontier, FCALL: mean (the default)', mean(functionRuns)],
    [
      'frontier, FCALL, packed domains (claim unfolds)',
      await frontierClaimComplete(redis, { packed: true, functions: true }),
    ],
  ];
  for (const perCall of [1, BATCH]) {
    const us = await floor(redis, perCall);
    rows.push([`floor, ${perCall} host${perCall > 1 ? 's' : ''} per script call`, us]);
  }
  await redis.flushall();
  const empty = await usedMemory(redis);
  const sketch = await claimCompleteInBuckets(
    redis,
    { hosts: HOSTS, perBucket: BATCH, pipeline: PIPELINE },
    async (work) => {
      const queued = await usedMemory(redis);
      const window = await startCpuWindow(redis);
      await work();
      const cpuUs = (await window()).cpuUs / HOSTS;
      return {
        cpuUs,
        queued: (queued - empty) / HOSTS,
        done: ((await usedMemory(redis)) - empty) / HOSTS,
      };
    },
  );
  rows.push([`sketch: ${BATCH} domains whole in a bucket per call`, sketch.cpuUs]);
  for (const [name, us] of rows) {
    console.log(
      `  ${name.padEnd(48)} ${fmt(us, 1).padStart(7)} µs  ${fmt(1e6 / us).padStart(8)} URLs per Redis CPU-second  ${fmt(us / baseline, 2)}× baseline`,
    );
  }
  let urlBytes = 0;
  for (let j = 0; j < HOSTS; j++) urlBytes += siteUrl(j).length;
  console.log(
    `the sketch's used_memory: ${fmt(sketch.queued, 1)} B per queued domain (URL + ${fmt(sketch.queued - urlBytes / HOSTS, 1)} B), ${fmt(sketch.done, 1)} B per finished one (its record; no seen fingerprints)`,
  );
  const bare = await perCallUs(redis, 'return 1');
  console.log(
    `defining the included helpers, per EVALSHA (bare \`return 1\`: ${fmt(bare, 2)} µs):`,
  );
  for (const script of ['claim-2.lua', 'complete-2.lua', 'enqueue-3.lua', 'index-update-3.lua']) {
    const us = (await perCallUs(redis, includesOnly(script))) - bare;
    console.log(`  ${script.padEnd(20)} ${fmt(us, 2).padStart(6)} µs`);
  }
} finally {
  redis.disconnect();
  await server.stop();
}
