--[[
  ip-gate-done: the request of a pass has ended. Its open slot is freed, and the next send at
  the address waits a whole delay from now: the end of the response is the last moment the
  server surely had the request, so a server that notes arrivals late still sees the full gap
  (per-IP spacing is start-to-start and end-to-start, like Heritrix's and BUbiNG's IP delays).

  KEYS[1] gate hash   (see ip-gate-acquire)
  KEYS[2] open zset
  KEYS[3] pending zset (a pass that never sent — connect failed — stops blocking the address)
  ARGV[1] pass token
  ARGV[2] delay between sends at this address (ms)
  ARGV[3] pass lifetime (ms)

  Returns 1 when the pass was open, 0 when it had expired (or the address has no limit).
  Side effects: token removed from the open and pending sets; n = max(n, now + delay); the gate key's
  expiry pushed to lifetime + delay.
]]
--@include "time"

local gate, open = KEYS[1], KEYS[2]
local delay, life = tonumber(ARGV[2]), tonumber(ARGV[3])
local removed = redis.call('ZREM', open, ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
if delay > 0 then
  local n = tonumber(redis.call('HGET', gate, 'n')) or 0
  redis.call('HSET', gate, 'n', fmt(math.max(n, now_ms() + delay)))
  redis.call('PEXPIRE', gate, life + delay)
end
return removed
