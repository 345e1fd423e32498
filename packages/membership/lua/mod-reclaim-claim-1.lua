--[[
  mod-reclaim-claim: exactly one survivor hands off a pod that vanished from the modulo
  replica list (it stopped registering). The lock expires, so a survivor that dies
  midway lets another one redo the (idempotent) work at the next transition.

  KEYS[1] key root  "<prefix>:{m}:mod:" (lock "<root>reclaim:<pod>")
  ARGV[1] vanished pod id
  ARGV[2] caller pod id
  ARGV[3] lock time (ms)

  Returns 1 when the caller got the lock, 0 otherwise.
]]

local ok = redis.call('SET', KEYS[1] .. 'reclaim:' .. ARGV[1], ARGV[2], 'NX', 'PX', tonumber(ARGV[3]))
if ok then return 1 end
return 0
