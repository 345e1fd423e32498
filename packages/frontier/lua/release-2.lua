#!lua flags=allow-oom
--[[
  release: a pod gives a lease back untouched (no request was sent). The entry returns
  to the front of its level with its attempt count unchanged.

  KEYS[1] domain hash  R..'d'
  KEYS[2] key root     R
  ARGV[1] host
  ARGV[2] lease field
  ARGV[3] holder pod id
  ARGV[4] default concurrency
  ARGV[5] hold (ms from now; 0 or absent = none): the host's next_allowed_at moves to at
          least now + hold, so no URL of the host is claimed before then (e.g. its robots.txt
          is unreachable and will be retried at that time). The attempt count is kept.

  Returns { status, seq, score }: status 0 ok, 1 lease not found, 2 held by another pod.
  Side effects: lease removed; host f, q (and n with a hold); domain f, q, released; the
  refilling budget's claim given back (budget.lua budget_refund).
  Flagged allow-oom (runs while Redis is full): moves a lease back to its queue: about the same memory.
]]
--@include "time"
--@include "host"
--@include "queue"
--@include "budget"

local dkey, root = KEYS[1], KEYS[2]
local host, field, holder = ARGV[1], ARGV[2], ARGV[3]
local lk = hkey(root, host, 'L')
local v = redis.call('HGET', lk, field)
if not v then return { 1, 0, '' } end
local _, who, claimed, level, entry = lease_parse(v)
if who ~= holder then return { 2, 0, '' } end
redis.call('HDEL', lk, field)
redis.call('ZREM', hkey(root, host, 'D'), field)
if not lease_slot_freed(root, host, field) then flight_add(root, host, -1) end
redis.call('HINCRBY', dkey, 'f', -1)
redis.call('HINCRBY', dkey, 'q', 1)
redis.call('HINCRBY', dkey, 'released', 1)
budget_refund(dkey, claimed)
queue_push(root, host, level, entry, true)
local hold = tonumber(ARGV[5]) or 0
if hold > 0 then
  local skey = pkey(root, host) -- next_allowed_at is shared by every crawl of the host
  local n = tonumber(redis.call('HGET', skey, 'n')) or 0
  redis.call('HSET', skey, 'n', fmt_at(math.max(n, now_ms() + hold)))
end
local seq, score = host_schedule(root, host, is_paused(dkey), tonumber(ARGV[4]))
return { 0, seq, score }
