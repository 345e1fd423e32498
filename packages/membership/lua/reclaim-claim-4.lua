--[[
  reclaim-claim: take (or renew) the lock on the reclaim of one removed pod, so that
  exactly one survivor hands off its due index and requeues its leases. The lock
  expires: if its holder dies, another survivor takes it over.

  KEYS[1] reclaim   ZSET removed pod -> epoch of its removal
  KEYS[2] kinds     HASH removed pod -> 'crash' | 'left' | 'left-released'
  KEYS[3] members   ZSET pod -> session expiry (Redis ms)
  KEYS[4] key root  "<prefix>:{m}:" (lock key "<root>lock:<pod>")
  ARGV[1] removed pod id
  ARGV[2] caller pod id (lock holder)
  ARGV[3] epoch of the caller's ring
  ARGV[4] lock time (ms)

  Returns { code, kind }: 1 granted (or renewed) with the pod's kind; 0 nothing to do
  (done, or the pod is a member again); 2 the caller's ring predates the removal
  (retry after catching up); 3 another survivor holds the lock.
]]

local pod, holder = ARGV[1], ARGV[2]
local removed_at = redis.call('ZSCORE', KEYS[1], pod)
if not removed_at then return { 0, '' } end
if redis.call('ZSCORE', KEYS[3], pod) then
  redis.call('ZREM', KEYS[1], pod)
  redis.call('HDEL', KEYS[2], pod)
  return { 0, '' }
end
if tonumber(ARGV[3]) < tonumber(removed_at) then return { 2, '' } end
local lock = KEYS[4] .. 'lock:' .. pod
local cur = redis.call('GET', lock)
if cur and cur ~= holder then return { 3, '' } end
redis.call('SET', lock, holder, 'PX', tonumber(ARGV[4]))
return { 1, redis.call('HGET', KEYS[2], pod) or 'crash' }
