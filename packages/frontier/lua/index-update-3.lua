#!lua flags=allow-oom
--[[
  index-update: apply host scores to a pod's due index, newest seq wins.

  Domain scripts and index scripts live in different slots, so a change is two round
  trips (domain script, then this). Concurrent clients can deliver those second steps
  out of order; each carries the host's seq from its domain script and only a seq newer
  than the one recorded for the member is applied. Removing a member forgets its seq (a
  later stale add then only causes one harmless visit, never a missing entry).

  Before a change that may make a host due (enqueue, complete, fail, release, reclaim)
  the caller first PINS the member: it may not be removed until pin ms have passed (a park
  inside the pin moves it to the pin's end instead), and it is added at "now" if absent.
  Lease operations (seq '0') also LOWER an existing score to the pin's end (now + pin ms):
  the host may sit at +inf while its lease is out, and only this operation's update would
  re-score it. Not to now: the host is still busy until the domain script runs, and a claimer
  visiting it in between (a round trip) would find nothing and cost a whole claim visit (half
  the visits of a busy claim+complete loop). A caller dying in between leaves the host due
  after pin ms, sooner than the lease deadline a crash before the operation leaves it at.
  Enqueue (seq '-1') keeps an existing score: a listed host is visited at that time
  anyway, and re-scored then. If the caller dies between its domain script and its
  update, the pinned entry makes some claimer visit the host and re-score it: no host
  with queued URLs is ever left out.

  'evict' removes the member whatever its pin. Only the pod handing off its own index
  after a ring change asks for it, for the hosts it no longer owns: the reindex's schedule
  script has just placed each of them, re-scored from its state, in the owner's index.
  Parking them at the pin's end instead would leave the old owner a copy of every host it
  was busy with (its last complete pinned it): each later handoff would reindex them all
  again and its claims would forward them one by one when the pins end, work that
  competes with the hosts it still owns.

  'gone' parks a host whose domain has no live keys (archived, archive.lua) whatever the
  seq: the archived domain keeps its hosts' seqs out of reach of the claim that met it, and
  the seq check only orders updates of live hosts. A stale 'gone' cannot drop a host that
  came back: everything that gives a host URLs pins it first, and a pinned entry survives a
  park.

  'idle' is the park of a script that does not fold the domain (complete, fail, release): the
  claim visit at the pin's end does (archive.lua). Inside the pin it parks there as 'park'
  does; past it (the caller stalled longer than the pin, or pin ms is 0) the member is placed
  at now instead of removed, so that a claim still visits it: folds the domain, or parks it
  for good with its own newer seq.

  'packed' hands a host of a packed domain (archive.lua: no keys of its own, its queue in its
  archive field) to the pod's backlog: the member leaves the index (whatever its pin) and is
  appended to the backlog, which due-take-3.lua turns back into due entries as the pod has
  room to claim. Only if its seq is newer: an older 'packed' must not drop the entry of a
  later script that unfolded the domain. Dropping a pinned entry loses nothing: the backlog
  entry that replaces it leads to the same visit, later. A backlog that is not empty makes
  the pod due now (the earliest due time returned and published).

  KEYS[1] due index   ZSET member "<domain>/<host>" -> due ms (or +inf)
  KEYS[2] due meta    HASH member -> "<seq>:<pinUntilMs>"
  KEYS[3] backlog     LIST of members of packed domains, oldest first
  ARGV[1] wake channel to PUBLISH the new earliest due ms to when it moves earlier
          ('' = no publish)
  ARGV[2] pin duration (ms)
  ARGV[3..] triples: member, seq ('0' = pin and lower, '-1' = pin and keep), score
            ('park' | 'idle' | 'gone' | 'evict' | 'packed' | ms | 'inf'; ignored for pins)

  Returns { earliestDueMs or '', nowMs }.
  Flagged allow-oom (runs while Redis is full): the due-index side of a domain script that already ran: refusing it could leave a host with queued URLs out of every index.
]]
--@include "time"

local zkey, mkey, bkey = KEYS[1], KEYS[2], KEYS[3]
local now = now_ms()
local pin_ms = tonumber(ARGV[2])
-- The pod's earliest due time: its index's first score, or now while its backlog has names.
-- Also whether it has any (an index of hosts at +inf has, and its earliest is 'inf').
local function earliest()
  local first = redis.call('ZRANGE', zkey, 0, 0, 'WITHSCORES')
  local at = first[2] and tonumber(first[2]) or math.huge
  if at > now and redis.call('LLEN', bkey) > 0 then return now, true end
  return at, first[2] ~= nil
end
local before, listed = earliest()

-- The triples run in order on Lua copies of their members' scores and metas (false =
-- absent), read with one HMGET and one ZMSCORE; what changed is written at the end with
-- one command per kind, as the triples one by one would have left it.
local members, listed = {}, {}
for i = 3, #ARGV, 3 do
  if not listed[ARGV[i]] then
    listed[ARGV[i]] = true
    members[#members + 1] = ARGV[i]
  end
end
local score0, meta0, score, token, meta, backlog = {}, {}, {}, {}, {}, {}
if #members > 0 then
  local metas = redis.call('HMGET', mkey, unpack(members))
  local scores = redis.call('ZMSCORE', zkey, unpack(members))
  for k, member in ipairs(members) do
    score0[member] = scores[k] and tonumber(scores[k]) or false
    score[member] = score0[member]
    meta0[member] = metas[k]
    meta[member] = metas[k]
  end
end

local function place(member, at, text)
  score[member], token[member] = at, text
end

for i = 3, #ARGV, 3 do
  local member, seq, given = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2]
  local cur_seq, pin = 0, 0
  if meta[member] then
    local a, b = string.match(meta[member], '^(%d+):(%d+)$')
    cur_seq, pin = tonumber(a), tonumber(b)
  end
  local cur = score[member]
  if seq <= 0 then
    if seq == 0 then
      -- ZADD LT: adds an absent member, lowers a present one.
      if not cur or now + pin_ms < cur then place(member, now + pin_ms, fmt(now + pin_ms)) end
    elseif not cur then
      place(member, now, fmt(now))
    end
    meta[member] = fmt(cur_seq) .. ':' .. fmt(now + pin_ms)
  elseif given == 'gone' then
    if pin > now then
      place(member, pin, fmt(pin))
    else
      score[member], meta[member] = false, false
    end
  elseif seq > cur_seq then
    if given == 'packed' then
      score[member], meta[member] = false, false
      backlog[#backlog + 1] = member
    elseif given == 'evict' then
      score[member], meta[member] = false, false
    elseif given == 'park' or given == 'idle' then
      if pin > now then
        place(member, pin, fmt(pin))
        meta[member] = fmt(seq) .. ':' .. fmt(pin)
      elseif given == 'idle' then
        place(member, now, fmt(now))
        meta[member] = fmt(seq) .. ':' .. fmt(pin)
      else
        score[member], meta[member] = false, false
      end
    else
      local at = tonumber(given)
      if not at then return redis.error_reply('ERR index-update: score not a number: ' .. given) end
      place(member, at, given)
      meta[member] = fmt(seq) .. ':' .. fmt(pin)
    end
  end
end

local zadd, zrem, hset, hdel = {}, {}, {}, {}
for _, member in ipairs(members) do
  if score[member] ~= score0[member] then
    if score[member] then
      zadd[#zadd + 1] = token[member]
      zadd[#zadd + 1] = member
    else
      zrem[#zrem + 1] = member
    end
  end
  if meta[member] ~= meta0[member] then
    if meta[member] then
      hset[#hset + 1] = member
      hset[#hset + 1] = meta[member]
    else
      hdel[#hdel + 1] = member
    end
  end
end
if #zadd > 0 then redis.call('ZADD', zkey, unpack(zadd)) end
if #zrem > 0 then redis.call('ZREM', zkey, unpack(zrem)) end
if #hset > 0 then redis.call('HSET', mkey, unpack(hset)) end
if #hdel > 0 then redis.call('HDEL', mkey, unpack(hdel)) end
if #backlog > 0 then redis.call('RPUSH', bkey, unpack(backlog)) end

local after = before
if #zadd > 0 or #zrem > 0 or #backlog > 0 then after, listed = earliest() end
if ARGV[1] ~= '' and after < before then
  redis.call('PUBLISH', ARGV[1], fmt(after))
end
return { listed and fmt(after) or '', fmt(now) }
