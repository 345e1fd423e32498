#!lua flags=allow-oom
--[[
  crawl-touch: a non-default crawl is about to write keys of some domains. Registers the
  crawl on first use and records the domains in the crawl's domain set, so that deleting
  the crawl finds every key it wrote without a scan. Refused while the crawl is being
  deleted (so nothing is written behind the deleter).

  KEYS[1] crawl registry   <prefix>:{crawls}          HASH crawl id -> '<createdAtMs>,<state>'
  KEYS[2] crawl domain set <prefix>:c:<crawl>:{crawls}:domains   SET of domains
  ARGV[1] crawl id
  ARGV[2..] domains

  Returns 'active', or 'deleting' (nothing recorded).
  Side effects: registry entry '<now>,active' when absent; SADD of the domains.
  Flagged allow-oom (runs while Redis is full): a few bytes per new domain, and refusing it
  would turn the enqueue's own out-of-memory report (items left pending) into a throw.
]]
--@include "time"

local v = redis.call('HGET', KEYS[1], ARGV[1])
if v == false then
  redis.call('HSET', KEYS[1], ARGV[1], fmt(now_ms()) .. ',active')
elseif string.match(v, ',deleting$') then
  return 'deleting'
end
-- SADD in slices: unpack() of thousands of arguments would overflow Lua's C stack.
for i = 2, #ARGV, 1000 do
  redis.call('SADD', KEYS[2], unpack(ARGV, i, math.min(i + 999, #ARGV)))
end
return 'active'
