--[[
  ip-gate-sent: the request of a pass has been sent; the next send at the address counts its
  delay from now (after the real send), not from the acquire, so a slow connect cannot shorten
  the gap the server sees.

  KEYS[1] gate hash   (see ip-gate-acquire)
  KEYS[2] open zset
  ARGV[1] pass token
  ARGV[2] delay between send starts at this address (ms)
  ARGV[3] pass lifetime (ms)

  Returns 1. Side effects: n = max(n, now + delay); keys' expiry pushed to lifetime + delay.
]]
--@include "time"

local gate, open = KEYS[1], KEYS[2]
local delay, life = tonumber(ARGV[2]), tonumber(ARGV[3])
local now = now_ms()
local n = tonumber(redis.call('HGET', gate, 'n')) or 0
redis.call('HSET', gate, 'n', fmt(math.max(n, now + delay)))
redis.call('PEXPIRE', gate, life + delay)
if redis.call('ZSCORE', open, ARGV[1]) then redis.call('PEXPIRE', open, life + delay) end
return 1
