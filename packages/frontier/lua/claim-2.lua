#!lua
--[[
  claim: visit ONE host of a domain that its owner's due index said was due. First takes
  back expired leases of the host (bounded), then, while the politeness gate is open,
  pops the best URL and writes a lease. Always re-scores the host (new seq).

  KEYS[1] domain hash  R..'d'
  KEYS[2] key root     R      (host keys R..'h:<host>:s|l|q:<lvl>|L|D', dead letters R..'x')
  ARGV[1] host
  ARGV[2] holder pod id
  ARGV[3] lease timeout (ms); 0 = leases never expire
  ARGV[4] most URLs to claim from this host in this visit
  ARGV[5] default delay between request starts (ms)
  ARGV[6] default concurrency per host
  ARGV[7] most expired leases to take back in this visit
  ARGV[8] max retries (attempts before dead-lettering)
  ARGV[9] dead-letter cap per domain
  ARGV[10] refilling budget: claims per window per domain (0 = none; budget.lua)
  ARGV[11] budget window (ms)
  ARGV[12] claim-ahead lead (ms; 0 or absent = none): a URL may be claimed up to this long
           before next_allowed_at; its lease then starts at next_allowed_at (notBefore below)
           and the caller must not send before that Redis time
  ARGV[13] archive hash of the domain (keys.ts archive(): same Cluster slot as KEYS[1]), or ''
           (or absent) not to archive: a visit that parks the host folds an idle small domain
           into it (archive.lua); a packed domain (archive.lua) is unfolded from it first
  ARGV[14] seen bucket load, ARGV[15] most fingerprints inline (seen.lua; for the unfolding)

  Gate (all must hold for each URL): domain not paused, now >= next_allowed_at and past
  any operator block of the host or domain, in flight (in every crawl) < concurrency, queue not empty,
  the domain's refilling budget not spent, and the host's crawl limit not reached (host.lua
  limit_room: fetched + leases out of the host in this crawl < lim). Each claim sets
  next_allowed_at = start + effective delay, reserving the start-to-start gap, where start =
  max(now, next_allowed_at): later than now only for a URL claimed ahead (ARGV[12]), which
  counts as in flight from the claim on (a holder that dies before sending keeps the slot
  until the reap).

  A domain without its counter hash (archived) is not visited: { 1, 'gone', nowMs, 0, '',
  replyAtUs, 0, '' } (index-update-3.lua parks 'gone' whatever the seq).

  Returns { seq, score, nowMs, reapedCount, reapedHolders (comma list, one per reaped
    lease, with ':dead' when it went to the dead letters), replyAtUs (Redis time in µs read
    last, to map notBefore onto the caller's monotonic clock), archived (1 when this visit
    archived the domain, else 0), unpacked ('' or "<ok>,<errors>,<queued>" when this visit
    unfolded a packed domain: its counts for the domain indexes it had left), leaseField1, deadline1,
    level1, entry1, notBefore1 (Redis ms; > nowMs only when claimed ahead), leaseField2, ... }
  Side effects: host state (f, id, q, seq; n in the politeness hash, host.lua), lease hash/deadlines, domain counters
  f, q, claimed, rep, dead, rs, budget bw/bn/be; dead letters; due refetches moved from the
  host's schedule to its queue (at most ARGV[4]).
  The shebang makes Redis refuse the whole script while it is out of memory (a script
  without one could stop halfway, at its first write that needs memory).
]]
--@include "time"
--@include "host"
--@include "queue"
--@include "deadletter"
--@include "requeue"
--@include "recrawl"
--@include "budget"
--@include "seen"
--@include "archive"

local dkey, root = KEYS[1], KEYS[2]
local host, holder = ARGV[1], ARGV[2]
local timeout = tonumber(ARGV[3])
local max = tonumber(ARGV[4])
local default_delay = tonumber(ARGV[5])
local default_conc = tonumber(ARGV[6])
local reap_max = tonumber(ARGV[7])
local max_retries = tonumber(ARGV[8])
local dead_cap = tonumber(ARGV[9])
local budget, budget_period = tonumber(ARGV[10]) or 0, tonumber(ARGV[11]) or 0
local lead = tonumber(ARGV[12]) or 0
local now = now_ms()
local unpacked = archive_unpack(root, dkey, ARGV[13], tonumber(ARGV[14]), tonumber(ARGV[15]))
if not unpacked and redis.call('EXISTS', dkey) == 0 then
  -- No live domain (archived by a visit to another of its hosts, archive.lua): nothing to
  -- claim or reap, and nothing written that would outlive the visit. 'gone' parks the entry.
  local t = redis.call('TIME')
  return { 1, 'gone', fmt(now), 0, '', t[1] .. string.format('%06d', tonumber(t[2])), 0, '' }
end
local skey = hkey(root, host, 's')

-- Expired leases first: they free concurrency and go back to the front of the queue. The
-- earliest deadline tells whether any expired (math.huge: no lease can expire); kept for
-- host_schedule, which needs it too, unless the reaping below changes the set.
local reaped = {}
local earliest = nil
if reap_max > 0 then
  local first = redis.call('ZRANGE', hkey(root, host, 'D'), 0, 0, 'WITHSCORES')
  earliest = first[2] and tonumber(first[2]) or math.huge
  if earliest <= now then
    earliest = nil
    local expired = redis.call('ZRANGEBYSCORE', hkey(root, host, 'D'), '-inf', now, 'LIMIT', 0, reap_max)
    for _, field in ipairs(expired) do
      local who, what = lease_requeue(root, dkey, host, field, now, max_retries, dead_cap, 'lease-expired')
      if who then
        reaped[#reaped + 1] = (what == 'dead') and (who .. ':dead') or who
      end
    end
  end
end

-- The domain's gates and counters, read once (after the reaping above, which counts in them)
-- and kept current here; so is the host's state, read at the first turn: nothing else
-- writes either while the script runs.
local d = domain_state(root, { 'f', 'q', 'claimed', 'bw', 'bn' })
local paused = d.paused
-- Refetches that came due join the queue (behind what is queued at their level).
if not paused and max > 0 then recrawl_promote(root, dkey, host, now, max) end
local leases = {}
local got = 0
local st = nil
-- The crawl limit's room, from the first turn's read (each lease taken here is one of got).
local room = nil
while got < max and not paused do
  st = st or host_state(root, host)
  room = room or limit_room(root, host, st)
  if got >= room then break end
  local conc = tonumber(st.c) or default_conc
  local start = math.max(now, not_before(root, st, d))
  -- Only the politeness gap opens ahead: operator blocks and budgets open at their own time.
  local ahead = (start == st.n) and lead or 0
  if st.q <= 0 or st.fa >= conc or start > now + ahead then break end
  if not budget_take(dkey, now, budget, budget_period, d) then break end
  local entry, level = queue_pop(root, host)
  if not entry then
    -- queue_pop may have repaired a drifted q.
    st.q = tonumber(redis.call('HGET', skey, 'q')) or 0
    break
  end
  st.q = st.q - 1 -- queue_pop took it from q
  local id = st.id + 1
  host_set(st, 'id', id)
  local field = host .. '/' .. id
  local deadline = 0
  if timeout > 0 then
    deadline = now + timeout
    redis.call('ZADD', hkey(root, host, 'D'), deadline, field)
    if earliest then earliest = math.min(earliest, deadline) end
  end
  redis.call('HSET', hkey(root, host, 'L'), field,
    fmt(deadline) .. ',' .. holder .. ',' .. fmt(now) .. ',' .. level .. ',' .. entry)
  polite_set(root, host, st, 'n', start + effective_delay(st, default_delay))
  flight_note(root, host, st, 1)
  got = got + 1
  leases[#leases + 1] = field
  leases[#leases + 1] = fmt(deadline)
  leases[#leases + 1] = level
  leases[#leases + 1] = entry
  leases[#leases + 1] = fmt_at(start)
end
if got > 0 then domain_add(dkey, d, { 'f', got, 'q', -got, 'claimed', got }) end
if st then st.ld = earliest end

local seq, score = host_schedule(root, host, paused, default_conc, st, d)
local archived = score == 'park' and archive_try(root, dkey, ARGV[13], now)
if score == 'park' and not archived and (ARGV[13] or '') ~= '' and polite_root(root) == root then
  -- archive.lua keeps a host whose next request is not allowed yet (its politeness lives in
  -- its hash): visit it again then, or its idle domain would stay live for good.
  local n = st and st.n or tonumber(redis.call('HGET', hkey(root, host, 's'), 'n')) or 0
  if n > now then score = fmt(math.ceil(n)) end
end
local t = redis.call('TIME')
local reply = { seq, score, fmt(now), #reaped, table.concat(reaped, ','),
  t[1] .. string.format('%06d', tonumber(t[2])), archived and 1 or 0,
  unpacked and table.concat(unpacked, ',') or '' }
for _, v in ipairs(leases) do reply[#reply + 1] = v end
return reply
