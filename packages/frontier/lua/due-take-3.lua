#!lua
--[[
  due-take: the pod side of claim. Takes up to max hosts whose due time has come from a
  pod's due index and holds them (score = now + hold) so the pod's other claimers skip
  them; the claimer's index-update then sets their real score (a claimer that dies only
  delays its hosts by the hold).

  It also takes from the pod's backlog (hosts of packed domains, index-update-3.lua), oldest
  first: half the take while both have hosts, all the room the index leaves. Each name
  becomes a held entry of the index (the claim's index-update scores it, as any), so a
  claimer that dies before its visit leaves it due after the hold, not lost. A name already
  in the index is visited too, its entry brought down to the hold if it was later (a second
  visit of a host costs a claim visit, never a second lease: claim-2.lua's gate decides).

  KEYS[1] due index   ZSET member "<domain>/<host>" -> due ms
  KEYS[2] due meta    HASH (untouched; named for the slot and for the header)
  KEYS[3] backlog     LIST of members
  ARGV[1] most members to take
  ARGV[2] hold (ms)
  ARGV[3] lead (ms; 0 = none): also takes hosts due within this long, for a claim ahead
          (claim-2.lua ARGV[12])
  ARGV[4] '1' to take from the backlog too (a claim), '0' not to (a reap: the backlog's
          domains have nothing out)

  Returns { nowMs, earliestDueMs or '' (after the holds; now while the backlog has names),
    member1, member2, ... }.
  No allow-oom flag: Redis refuses it whole while full, so a claim that would be refused
  next holds no host (a hold would delay the host after Redis has room again).
]]
--@include "time"

local now = now_ms()
local lead = tonumber(ARGV[3]) or 0
local max = tonumber(ARGV[1])
local drain = ARGV[4] == '1'
-- While both have hosts, half the take is the backlog's (the odd one by the ms's parity, so
-- a claim of one alternates): hosts that came due in the index (finished ones whose pins
-- lapsed, to be parked) must not starve the backlog's, nor the reverse.
local share = 0
if drain then
  share = math.floor(max / 2)
  if max % 2 == 1 and math.floor(now) % 2 == 1 then share = share + 1 end
  share = math.min(share, redis.call('LLEN', KEYS[3]))
end
local members = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now + lead, 'LIMIT', 0, max - share)
local hold = now + tonumber(ARGV[2])
for _, m in ipairs(members) do
  redis.call('ZADD', KEYS[1], hold, m)
end
local room = max - #members
if room > 0 and drain then
  local taken = {}
  for _, m in ipairs(members) do taken[m] = true end
  for _, m in ipairs(redis.call('LPOP', KEYS[3], room) or {}) do
    -- LT: a name already listed is brought down to the hold, not left where it is (an older
    -- update landing after the 'packed' one, whose seq it forgot, may have put it at +inf).
    redis.call('ZADD', KEYS[1], 'LT', hold, m)
    if not taken[m] then
      taken[m] = true
      members[#members + 1] = m
    end
  end
end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local earliest = first[2] and fmt(tonumber(first[2])) or ''
if redis.call('LLEN', KEYS[3]) > 0 and not (first[2] and tonumber(first[2]) <= now) then
  earliest = fmt(now)
end
local reply = { fmt(now), earliest }
for _, m in ipairs(members) do reply[#reply + 1] = m end
return reply
