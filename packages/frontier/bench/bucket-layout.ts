/**
 * A sketch of a layout the frontier does not have, priced by the floor bench (not a bench
 * itself: no `.bench.ts`): one-URL domains kept whole in their bucket, every key of a bucket
 * under one hash tag (one Cluster slot), so that one script call claims or completes many
 * domains with a handful of variadic commands.
 *
 * Per bucket: a hash of records (field = domain; value `state|nextAllowedMs|claimed|ok|leaseId|
 * holder|url`, state `q` queued, `L` leased, `d` done), a due ZSET (a queued domain scored by
 * its next allowed time, a leased one by its lease deadline, so expired leases come due
 * like work: no deadline set of their own) and a counters hash. The pod's index of its
 * buckets (another slot) becomes a hint updated once per call: the bucket's due ZSET is the
 * truth, so a stale hint costs a wasted visit, never a double claim (no seq/pin protocol).
 * The ring would then map buckets, not domains, to pods.
 *
 * Claim: `TIME`, `ZRANGEBYSCORE`, `HMGET`, `HSET`, `ZADD`, `HINCRBY` per call; complete:
 * `HMGET`, `HSET`, `ZREM`, `HINCRBY` per call; plus the pod index's `ZADD` per claim call.
 */
import type { Redis } from 'ioredis';

/** KEYS: records, due, counters; ARGV: holder, lease ms, delay ms, most domains. */
const CLAIM = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, tonumber(ARGV[4]))
if #due == 0 then return {} end
local records = redis.call('HMGET', KEYS[1], unpack(due))
local holder, lease, delay = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local set, scores, out = {}, {}, {}
for i, domain in ipairs(due) do
  local state, claimed, ok, id, url =
    string.match(records[i] or '', '^(%a)|%d+|(%d+)|(%d+)|(%d+)|[^|]*|(.*)$')
  -- A lease that came due expired: its URL is queued again (a reap, in the same pass).
  if state == 'q' or state == 'L' then
    id = tonumber(id) + 1
    set[#set + 1] = domain
    set[#set + 1] = 'L|' .. (now + delay) .. '|' .. (tonumber(claimed) + 1) .. '|' .. ok .. '|' ..
      id .. '|' .. holder .. '|' .. url
    scores[#scores + 1] = now + lease
    scores[#scores + 1] = domain
    out[#out + 1] = domain
    out[#out + 1] = id
    out[#out + 1] = url
  end
end
if #out == 0 then return {} end
redis.call('HSET', KEYS[1], unpack(set))
redis.call('ZADD', KEYS[2], unpack(scores))
redis.call('HINCRBY', KEYS[3], 'claimed', #out / 3)
return out
`;

/** KEYS: records, due, counters; ARGV: holder, then per lease: domain, lease id. */
const COMPLETE = `
local domains = {}
for i = 2, #ARGV, 2 do domains[#domains + 1] = ARGV[i] end
local records = redis.call('HMGET', KEYS[1], unpack(domains))
local set, done = {}, {}
for i, domain in ipairs(domains) do
  local state, next_at, claimed, ok, id, holder =
    string.match(records[i] or '', '^(%a)|(%d+)|(%d+)|(%d+)|(%d+)|([^|]*)|')
  if state == 'L' and id == ARGV[2 * i + 1] and holder == ARGV[1] then
    set[#set + 1] = domain
    set[#set + 1] = 'd|' .. next_at .. '|' .. claimed .. '|' .. (tonumber(ok) + 1) .. '|' .. id .. '||'
    done[#done + 1] = domain
  end
end
if #done == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(set))
redis.call('ZREM', KEYS[2], unpack(done))
redis.call('HINCRBY', KEYS[3], 'ok', #done)
return #done
`;

/** The one URL of site `j` in every shape of the floor bench. */
export function siteUrl(j: number): string {
  return `https://www.site${j}.com/articles/${j}/a-page-title`;
}

/** The keys of bucket `b` under `prefix`: records, due, counters (one hash tag). */
function bucketKeys(prefix: string, b: number): [string, string, string] {
  const tag = `${prefix}:{b:${b}}`;
  return [`${tag}:r`, `${tag}:due`, `${tag}:c`];
}

/**
 * Seeds `hosts` one-URL domains in buckets of `perBucket`, then claims and completes every one,
 * a bucket per script call, `pipeline` calls per round trip. Runs `measure` around the claims
 * and completions (not the seeding) and returns what it returns.
 */
export async function claimCompleteInBuckets<T>(
  redis: Redis,
  options: { hosts: number; perBucket: number; pipeline: number },
  measure: (work: () => Promise<void>) => Promise<T>,
): Promise<T> {
  const { hosts, perBucket, pipeline } = options;
  const prefix = 'bucketed';
  const buckets = Math.ceil(hosts / perBucket);
  for (let b = 0; b < buckets; b += 100) {
    const pipe = redis.pipeline();
    for (let k = b; k < Math.min(buckets, b + 100); k++) {
      const [records, due] = bucketKeys(prefix, k);
      const fields: string[] = [];
      const scores: (string | number)[] = [];
      for (let j = k * perBucket; j < Math.min(hosts, (k + 1) * perBucket); j++) {
        fields.push(
          `site${j}.com`,
          `q|0|0|0|0||https://www.site${j}.com/articles/${j}/a-page-title`,
        );
        scores.push(0, `site${j}.com`);
      }
      pipe.hset(records, ...fields);
      pipe.zadd(due, ...scores);
    }
    await pipe.exec();
  }
  const claimSha = (await redis.script('LOAD', CLAIM)) as string;
  const completeSha = (await redis.script('LOAD', COMPLETE)) as string;
  const podIndex = `${prefix}:pod:{p:bench}:buckets`;
  return measure(async () => {
    let urls = 0;
    for (let b = 0; b < buckets; b += pipeline) {
      const ids = Array.from({ length: Math.min(pipeline, buckets - b) }, (_, i) => b + i);
      const claims = redis.pipeline();
      for (const k of ids) {
        claims.evalsha(claimSha, 3, ...bucketKeys(prefix, k), 'bench', 60_000, 0, perBucket);
        // The pod's hint: when this bucket is next worth a visit (its lease deadline here).
        claims.zadd(podIndex, Date.now() + 60_000, String(k));
      }
      const replies = (await claims.exec()) ?? [];
      const completes = redis.pipeline();
      ids.forEach((k, i) => {
        const [error, reply] = replies[2 * i]!;
        if (error) throw error;
        const leased = reply as (string | number)[];
        const args: string[] = [];
        for (let j = 0; j < leased.length; j += 3)
          args.push(String(leased[j]), String(leased[j + 1]));
        completes.evalsha(completeSha, 3, ...bucketKeys(prefix, k), 'bench', ...args);
      });
      for (const [error, done] of (await completes.exec()) ?? []) {
        if (error) throw error;
        urls += Number(done);
      }
    }
    if (urls !== hosts) throw new Error(`${urls} of ${hosts} URLs claimed and completed`);
  });
}
