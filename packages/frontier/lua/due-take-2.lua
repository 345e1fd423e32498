#!lua
--[[
  due-take: the pod side of claim. Takes up to max hosts whose due time has come from a
  pod's due index and holds them (score = now + hold) so the pod's other claimers skip
  them; the claimer's index-update then sets their real score (a claimer that dies only
  delays its hosts by the hold).

  KEYS[1] due index   ZSET member "<domain>/<host>" -> due ms
  KEYS[2] due meta    HASH (untouched; named for the slot and for the header)
  ARGV[1] most members to take
  ARGV[2] hold (ms)
  ARGV[3] lead (ms; 0 or absent = none): also takes hosts due within this long, for a claim
          ahead (claim-2.lua ARGV[12])

  Returns { nowMs, earliestDueMs or '' (after the holds), member1, member2, ... }.
  No allow-oom flag: Redis refuses it whole while full, so a claim that would be refused
  next holds no host (a hold would delay the host after Redis has room again).
]]
--@include "time"

local now = now_ms()
local lead = tonumber(ARGV[3]) or 0
local members = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now + lead, 'LIMIT', 0, tonumber(ARGV[1]))
for _, m in ipairs(members) do
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), m)
end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local reply = { fmt(now), first[2] and fmt(tonumber(first[2])) or '' }
for _, m in ipairs(members) do reply[#reply + 1] = m end
return reply
