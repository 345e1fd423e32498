--[[
  reclaim-unlock: the holder of a reclaim lock lets it go without finishing the reclaim
  (a leaver that handed off its own due index: one survivor still does the final check).

  KEYS[1] key root  "<prefix>:{m}:" (lock key "<root>lock:<pod>")
  ARGV[1] pod id whose reclaim lock is released
  ARGV[2] caller (must hold the lock)
  ARGV[3] epoch channel (pub/sub): gets "reclaim:<pod>" so survivors look at once

  Returns 1 when the lock was the caller's and is gone, 0 otherwise.
]]

local lock = KEYS[1] .. 'lock:' .. ARGV[1]
if redis.call('GET', lock) ~= ARGV[2] then return 0 end
redis.call('DEL', lock)
redis.call('PUBLISH', ARGV[3], 'reclaim:' .. ARGV[1])
return 1
