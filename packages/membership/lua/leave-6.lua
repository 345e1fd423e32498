#!lua flags=allow-oom
--[[
  leave: a graceful stop removes the pod from the registry at once.

  KEYS[1] members   ZSET pod -> session expiry (Redis ms)
  KEYS[2] meta      HASH pod -> member metadata
  KEYS[3] epoch     STRING ring epoch
  KEYS[4] reclaim   ZSET removed pod -> epoch of its removal
  KEYS[5] kinds     HASH removed pod -> 'crash' | 'left' | 'left-released'
  KEYS[6] key root  "<prefix>:{m}:" (reclaim lock "<root>lock:<pod>")
  ARGV[1] pod id
  ARGV[2] kind: 'left-released' (the pod released its leases) or 'left'
  ARGV[3] epoch channel (pub/sub)
  ARGV[4] lock time (ms)

  Returns { removed (0|1), epoch }.
  Side effects: when the pod was a member: ZREM, INCR epoch, PUBLISH it, and record the
  pod in reclaim so that one survivor, once on the new ring, hands off whatever still
  sits in the leaver's due index afterwards (entries placed there by enqueuers with a
  stale ring). The leaver holds its own reclaim lock while it hands off its index itself,
  so no survivor duplicates that work; if the leaver dies midway, the lock expires.
  Flagged allow-oom (runs while Redis is full): removes a member: it shrinks state.
]]

local pod = ARGV[1]
if redis.call('ZREM', KEYS[1], pod) == 0 then
  return { 0, tonumber(redis.call('GET', KEYS[3]) or '0') }
end
redis.call('HDEL', KEYS[2], pod)
local epoch = redis.call('INCR', KEYS[3])
redis.call('ZADD', KEYS[4], epoch, pod)
redis.call('HSET', KEYS[5], pod, ARGV[2])
redis.call('SET', KEYS[6] .. 'lock:' .. pod, pod, 'PX', tonumber(ARGV[4]))
redis.call('PUBLISH', ARGV[3], epoch)
return { 1, epoch }
