--[[
  ip-gate-acquire: take a send slot of one IP address, shared by every pod and every host
  that resolves to it (per-IP politeness).

  KEYS[1] gate hash     P..'{ip:<addr>}:g'   field n = next allowed send (Redis ms)
  KEYS[2] open zset     P..'{ip:<addr>}:o'   member = pass token, score = expiry (Redis ms)
  KEYS[3] pending zset  P..'{ip:<addr>}:p'   passes taken but not sent yet (score = expiry)
  ARGV[1] pass token (unique per pass: "<pod>:<n>")
  ARGV[2] delay between send starts at this address (ms, 0 = none)
  ARGV[3] sends open at once at this address (0 = no limit)
  ARGV[4] pass lifetime (ms): an open or pending pass whose pod died stops counting after it

  Returns { status, waitMs }: status 0 = slot taken (waitMs 0); 1 = the address is full
  (waitMs until its earliest open pass expires; a release may come sooner); 2 = inside the
  delay (waitMs until it has passed); 3 = an earlier pass has not sent yet (with a delay, the
  gap counts from the real send, which ip-gate-sent reports; waitMs until it expires).
  Side effects on success: token added to the open set when there is a limit and to the
  pending set when there is a delay (expiry now + lifetime), n = now + delay; the keys expire
  once they constrain nothing (lifetime + delay), so idle addresses leave no keys.
]]
--@include "time"

local gate, open, pending = KEYS[1], KEYS[2], KEYS[3]
local token = ARGV[1]
local delay, limit, life = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', open, '-inf', now)
if limit > 0 and redis.call('ZCARD', open) >= limit then
  local first = redis.call('ZRANGE', open, 0, 0, 'WITHSCORES')
  return { 1, fmt(math.max(1, tonumber(first[2]) - now)) }
end
local n = tonumber(redis.call('HGET', gate, 'n')) or 0
if now < n then return { 2, fmt(n - now) } end
if delay > 0 then
  redis.call('ZREMRANGEBYSCORE', pending, '-inf', now)
  local first = redis.call('ZRANGE', pending, 0, 0, 'WITHSCORES')
  if first[2] then return { 3, fmt(math.max(1, tonumber(first[2]) - now)) } end
  redis.call('ZADD', pending, now + life, token)
  redis.call('PEXPIRE', pending, life + delay)
end
if limit > 0 then
  redis.call('ZADD', open, now + life, token)
  redis.call('PEXPIRE', open, life + delay)
end
redis.call('HSET', gate, 'n', fmt(now + delay))
redis.call('PEXPIRE', gate, life + delay)
return { 0, '0' }
