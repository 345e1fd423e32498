#!lua flags=allow-oom
--[[
  counters: apply one operation's bookkeeping deltas to ONE counter key (the global or a
  pod's counters, or an index of domains by depth, fetches, errors or dead letters).

  Flagged allow-oom: the domain scripts whose effects these deltas count have already run,
  so refusing them under OOM (as a plain HINCRBY is refused) would leave the sums off from
  the exact per-domain values for good. A delta rewrites a number; it grows memory only by
  a new field or member, a few bytes.

  KEYS[1] counter key: a HASH ('h') or a ZSET ('z', 'zd')
  ARGV[1] 'h' hash fields | 'z' sorted-set members | 'zd' sorted-set members, then drop
          the members whose score is exactly 0 (a transient negative must stay to cancel
          its increment) | 'zr' sorted-set members to remove (archived domains)
  ARGV[2..] pairs: field or member, integer delta; for 'zr' members only

  Returns the number of pairs applied.
  Side effects: HINCRBY / ZINCRBY per pair (ZREMRANGEBYSCORE 0 0 for 'zd'; ZREM for 'zr').
]]

local kind, key = ARGV[1], KEYS[1]
if kind == 'zr' then
  local removed = 0
  for i = 2, #ARGV, 1000 do
    removed = removed + redis.call('ZREM', key, unpack(ARGV, i, math.min(i + 999, #ARGV)))
  end
  return removed
end
local n = 0
for i = 2, #ARGV, 2 do
  if kind == 'h' then
    redis.call('HINCRBY', key, ARGV[i], ARGV[i + 1])
  else
    redis.call('ZINCRBY', key, ARGV[i + 1], ARGV[i])
  end
  n = n + 1
end
if kind == 'zd' then redis.call('ZREMRANGEBYSCORE', key, 0, 0) end
return n
