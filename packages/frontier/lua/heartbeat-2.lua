#!lua flags=allow-oom
--[[
  heartbeat: extend a lease while its fetch runs.

  KEYS[1] lease hash       R..'h:<host>:L'
  KEYS[2] lease deadlines  R..'h:<host>:D'
  ARGV[1] lease field ("<host>/<n>")
  ARGV[2] holder pod id (must match the lease)
  ARGV[3] lease timeout (ms); the new deadline is now + timeout; 0 = leases never expire

  Returns { status, deadlineMs }: status 0 ok, 1 lease not found (reaped, completed or
  never existed), 2 held by another pod.
  Side effects: the lease value and its deadline. The host's due-index score is not
  touched: at worst the host is visited once at the old deadline and re-scored.
  Flagged allow-oom (runs while Redis is full): rewrites one lease in place: a full Redis must still keep leases in flight alive, or every fetch is repeated at each lease expiry.
]]
--@include "time"
--@include "host"

local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v then return { 1, '0' } end
local deadline, holder, claimed, level, entry = lease_parse(v)
if holder ~= ARGV[2] then return { 2, fmt(deadline) } end
local timeout = tonumber(ARGV[3])
if timeout <= 0 then return { 0, '0' } end
deadline = now_ms() + timeout
redis.call('HSET', KEYS[1], ARGV[1], fmt(deadline) .. ',' .. holder .. ',' .. fmt(claimed) .. ',' .. level .. ',' .. entry)
redis.call('ZADD', KEYS[2], deadline, ARGV[1])
return { 0, fmt(deadline) }
