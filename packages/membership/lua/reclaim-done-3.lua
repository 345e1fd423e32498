--[[
  reclaim-done: the lock holder finished the reclaim of a removed pod.

  KEYS[1] reclaim   ZSET removed pod -> epoch of its removal
  KEYS[2] kinds     HASH removed pod -> kind
  KEYS[3] key root  "<prefix>:{m}:" (lock key "<root>lock:<pod>")
  ARGV[1] removed pod id
  ARGV[2] caller pod id (must hold the lock)

  Returns 1 when the caller held the lock (the pod leaves the reclaim set, the lock is
  deleted), 0 otherwise (the lock expired and maybe moved on: nothing is changed).
]]

local lock = KEYS[3] .. 'lock:' .. ARGV[1]
if redis.call('GET', lock) ~= ARGV[2] then return 0 end
redis.call('DEL', lock)
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
