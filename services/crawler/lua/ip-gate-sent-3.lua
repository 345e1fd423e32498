--[[
  ip-gate-sent: the request of a pass has been sent; the next send at the address counts its
  delay from now (after the real send), not from the acquire, so a slow connect or a busy pod
  cannot shorten the gap the server sees. Until this arrives no other pass is handed out at
  the address (ip-gate-acquire status 3).

  KEYS[1] gate hash     (see ip-gate-acquire)
  KEYS[2] open zset
  KEYS[3] pending zset
  ARGV[1] pass token
  ARGV[2] delay between send starts at this address (ms)
  ARGV[3] pass lifetime (ms)

  Returns 1. Side effects: token leaves the pending set; n = max(n, now + delay); the gate
  key's expiry pushed to lifetime + delay.
]]
--@include "time"

local gate, pending = KEYS[1], KEYS[3]
local delay, life = tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREM', pending, ARGV[1])
local n = tonumber(redis.call('HGET', gate, 'n')) or 0
redis.call('HSET', gate, 'n', fmt(math.max(n, now_ms() + delay)))
redis.call('PEXPIRE', gate, life + delay)
return 1
