--[[
  Host-level helpers shared by every script that touches a host queue.

  Key names under the domain's key root R (all in the domain's hash slot):
    R .. 'h:' .. host .. ':s'           HASH  host state (politeness + queue size + seq; a
                                              small queue folded into its field Q, below)
    R .. 'h:' .. host .. ':l'           ZSET  non-empty priority levels (member = score = level)
                                              of a queue too big to fold
    R .. 'h:' .. host .. ':q:' .. lvl   LIST  queue entries at one level, FIFO (same)
    R .. 'h:' .. host .. ':L'           HASH  leases: field "<host>/<n>" -> packed lease
    R .. 'h:' .. host .. ':D'           ZSET  lease deadlines (ms) of leases that can expire
    R .. 'h:' .. host .. ':U'           SET   leases whose politeness slot was freed (free-slot-2.lua)
    R .. 'h:' .. host .. ':r'           ZSET  refetch schedule buckets (recrawl.lua)
    R .. 'h:' .. host .. ':r:' .. due   LIST  refetches due then (recrawl.lua)
  Host state fields: q queued, f in flight, n next_allowed_at (ms), c concurrency,
  dl configured delay (ms), cd robots crawl-delay (ms), bo backoff (ms), fc consecutive
  failures, ad adaptive delay (ms), ar why the adaptive delay is up ('s' slow responses,
  'e' server errors/timeouts), bu blocked until (ms, operator's pause --until), seq
  scheduling sequence, id lease counter, lim crawl limit (URLs of the host fetched + out in
  the crawl, set-policy-2.lua; absent = none), dn URLs of the host fetched in the crawl
  (complete-2.lua), Q the folded queue. The domain hash R .. 'd' may hold bu too (the
  whole domain blocked until then).
  Crawls: R of the default crawl is '<prefix>:{d:<domain>}:', of crawl X
  '<prefix>:{d:<domain>}:c:X:' (same hash tag, same slot). Politeness is per host across
  all crawls, so the politeness fields (n dl cd bo fc ad ar bu, and the domain's bu) live in
  the host state hash under P, the default crawl's root, derived from R by polite_root()
  (a key of the same slot, like every host key built from R); q f c seq id, the budgets
  and the paused flag stay under R (so do lim and dn: a crawl limit is the crawl's). For the default crawl P == R: one hash, as before.
  Concurrency is per host across crawls too: P's host hash also counts 'fx', the requests
  in flight of the non-default crawls (flight_add), and the gate compares c with f + fx of
  P (the default crawl's own f plus everyone else's).
  Queue entry: "<depth>,<attempt>,<metaLen>,<meta><url>", or "<depth>|<url>" for attempt 0
  without meta or refetch (entry_parse reads both)
  Lease value: "<deadline>,<holder>,<claimedAt>,<priority>,<entry>" (deadline 0 = never)
]]
local function hkey(root, host, suffix)
  return root .. 'h:' .. host .. ':' .. suffix
end

-- The politeness root P of a crawl's key root R: R without its 'c:<crawl>:' tail.
local function polite_root(root)
  return string.match(root, '^(.*}:)c:[a-z0-9._-]+:$') or root
end

-- The hash that holds a host's politeness fields (shared by every crawl of the host).
local function pkey(root, host)
  return hkey(polite_root(root), host, 's')
end

-- Split a lease value into deadline, holder, claimedAt, priority, entry.
local function lease_parse(v)
  local deadline, holder, claimed, level, entry = string.match(v, '^(%d+),([^,]*),(%d+),(%-?%d+),(.*)$')
  return tonumber(deadline), holder, tonumber(claimed), level, entry
end

-- Whether the lease's politeness slot was already freed (free-slot-2.lua: fetch done, page
-- handler still running); forgets the mark. A freed lease no longer counts in the host's f
-- and its end must not touch the host's politeness again.
local function lease_slot_freed(root, host, field)
  return redis.call('SREM', hkey(root, host, 'U'), field) == 1
end

-- Split an entry into depth, attempt, and the rest ("<metaLen>,<meta><url>").
local function entry_parse(e)
  local depth, attempt, rest = string.match(e, '^(%d+),(%d+),(.*)$')
  if not depth then
    -- The short form "<depth>|<url>" (codec.ts packEntry): attempt 0, no meta, no refetch.
    local d, url = string.match(e, '^(%d+)|(.*)$')
    return tonumber(d), 0, '0,' .. url
  end
  return tonumber(depth), tonumber(attempt), rest
end

-- Effective start-to-start delay of a host (ms): max of configured delay, robots
-- crawl-delay, failure backoff and the adaptive (response-time based) delay.
local function effective_delay(st, default_delay)
  local d = tonumber(st.dl) or default_delay
  local cd = tonumber(st.cd) or 0
  local bo = tonumber(st.bo) or 0
  local ad = tonumber(st.ad) or 0
  return math.max(d, cd, bo, ad)
end

-- A host's state in this crawl, with the shared politeness fields; fa = requests in flight
-- to the host in every crawl. A script that keeps the table through its changes (host_set,
-- polite_set, flight_note) hands it to host_schedule, which saves them with the new seq; one
-- that knows the earliest lease deadline (math.huge: none) sets st.ld, sparing its read.
local function host_state(root, host)
  local v = redis.call('HMGET', hkey(root, host, 's'), 'q', 'f', 'n', 'c', 'dl', 'cd', 'bo', 'ad', 'fc', 'bu', 'fx', 'lim', 'dn', 'seq', 'id')
  local proot = polite_root(root)
  -- pf: P's f outside the default crawl (its own f counts there as P's fx instead).
  local pf = nil
  if proot ~= root then
    local p = redis.call('HMGET', hkey(proot, host, 's'), 'n', 'dl', 'cd', 'bo', 'ad', 'fc', 'bu', 'f', 'fx')
    v[3], v[5], v[6], v[7], v[8], v[9], v[10] = p[1], p[2], p[3], p[4], p[5], p[6], p[7]
    pf, v[11] = tonumber(p[8]) or 0, p[9]
  end
  local st = { q = tonumber(v[1]) or 0, f = tonumber(v[2]) or 0, n = tonumber(v[3]) or 0,
    c = v[4], dl = v[5], cd = v[6], bo = v[7], ad = v[8], fc = tonumber(v[9]) or 0,
    bu = tonumber(v[10]) or 0, fx = tonumber(v[11]) or 0, pf = pf, lim = tonumber(v[12]) or 0,
    dn = tonumber(v[13]) or 0, seq = tonumber(v[14]) or 0, id = tonumber(v[15]) or 0, w = {} }
  st.fa = (pf or st.f) + math.max(0, st.fx)
  return st
end

-- A host field's value as text: the next-allowed time 'n' keeps its µs (time.lua fmt_at).
local function fmt_field(field, value)
  if field == 'n' then return fmt_at(value) end
  return fmt(value)
end

-- A new value of a field of the crawl's host hash (R), kept in st: host_schedule writes it.
local function host_set(st, field, value)
  st[field] = value
  st.w[field] = true
end

-- A new value of a politeness field (P's host hash): kept with R's pending fields when P is R
-- (the default crawl), else written at once.
local function polite_set(root, host, st, field, value)
  if polite_root(root) == root then
    host_set(st, field, value)
  else
    st[field] = value
    redis.call('HSET', pkey(root, host), field, fmt_field(field, value))
  end
end

-- A lease of this crawl starts (+1) or ends (-1): the crawl's own count and, outside the
-- default crawl, the host's count of other crawls' requests in flight.
local function flight_add(root, host, delta)
  redis.call('HINCRBY', hkey(root, host, 's'), 'f', delta)
  local proot = polite_root(root)
  if proot ~= root then redis.call('HINCRBY', hkey(proot, host, 's'), 'fx', delta) end
end

-- flight_add for a script that holds the host's state: f is kept in st (host_set), P's fx is
-- written at once, and fa follows as host_state would read it back.
local function flight_note(root, host, st, delta)
  host_set(st, 'f', st.f + delta)
  if st.pf then
    redis.call('HINCRBY', pkey(root, host), 'fx', delta)
    st.fx = st.fx + delta
  end
  st.fa = (st.pf or st.f) + math.max(0, st.fx)
end

-- How soon a crawl held back only by OTHER crawls' requests to the host looks again: their
-- completions re-score their own due entries, not this crawl's.
local OTHERS_IN_FLIGHT_POLL_MS = 500

-- The domain hash's fields a script needs (`fields`), read in one go with the domain's own
-- gates: d.paused, d.bu (an operator's block of the whole domain, in P .. 'd'), d.be (the
-- crawl's refilling budget spent until then, budget.lua). Counters come back as numbers;
-- domain_add writes them.
local function domain_state(root, fields)
  local v = redis.call('HMGET', root .. 'd', 'paused', 'bu', 'be', unpack(fields))
  local d = { paused = v[1] == '1', bu = tonumber(v[2]) or 0, be = tonumber(v[3]) or 0 }
  for i, name in ipairs(fields) do d[name] = tonumber(v[i + 3]) or 0 end
  local proot = polite_root(root)
  if proot ~= root then d.bu = tonumber(redis.call('HGET', proot .. 'd', 'bu')) or 0 end
  return d
end

-- Adds to counters of the domain hash that domain_state read: one HSET of the new values
-- (a script runs alone, so this is what one HINCRBY each would leave). `deltas`: field, n, ...
local function domain_add(dkey, d, deltas)
  local args = {}
  for i = 1, #deltas, 2 do
    local name = deltas[i]
    d[name] = d[name] + deltas[i + 1]
    args[#args + 1] = name
    args[#args + 1] = fmt(d[name])
  end
  redis.call('HSET', dkey, unpack(args))
end

-- Earliest time a new request may start: next_allowed_at, or later while an operator's
-- block (of the host, or of its whole domain) lasts or the crawl's refilling budget of the
-- domain is spent. `d` is the domain's domain_state, read here when not given.
local function not_before(root, st, d)
  d = d or domain_state(root, {})
  return math.max(st.n, st.bu, d.bu, d.be)
end

-- How many more URLs of the host the crawl may hand out under its crawl limit (URLFrontier's
-- SetCrawlLimit): lim - (fetched + leases out now); math.huge without a limit. A URL handed
-- out again after its lease lapsed or failed takes the place it held before. `st` is the
-- host's host_state (it reads lim and dn with the rest): no read of its own without a limit.
local function limit_room(root, host, st)
  if st.lim <= 0 then return math.huge end
  return st.lim - st.dn - redis.call('HLEN', hkey(root, host, 'L'))
end

--[[
  Where the host belongs in its owner's due index, after a change:
    'park'        nothing queued and nothing in flight (or paused with nothing in flight),
                  and no refetch scheduled (else the earliest refetch, not before the gate)
    not_before    queued, not paused, below its concurrency and its crawl limit: next_allowed_at, or the end
                  of an operator's block; at least OTHERS_IN_FLIGHT_POLL_MS from now when
                  only other crawls' requests to the host hold it back
    lease deadline / inf   otherwise while leases are out: the earliest deadline that can
                  expire (reaping happens when the host is visited), else +inf, which
                  keeps the host listed (reclaimPod finds leases through the due indexes)
                  without ever being polled; the lease's complete/fail/release re-scores it.
                  A host at its crawl limit with URLs queued stays listed at +inf too (its
                  URLs are not lost: raising or lifting the limit re-scores it), and its
                  pending refetches do not make it due.
  Bumps and returns the host's seq: index updates apply only if their seq is newer.
]]
local function host_schedule(root, host, paused, default_conc, st, d)
  st = st or host_state(root, host)
  local limited = limit_room(root, host, st) <= 0
  -- The new seq, with the fields the caller kept in st (host_set), in one write.
  local seq = st.seq + 1
  local args = { 'seq', fmt(seq) }
  for name in pairs(st.w) do
    args[#args + 1] = name
    args[#args + 1] = fmt_field(name, st[name])
  end
  redis.call('HSET', hkey(root, host, 's'), unpack(args))
  -- A lease whose slot was freed is still out: the host stays listed until it ends.
  if st.f <= 0 and (st.q <= 0 or paused) and redis.call('EXISTS', hkey(root, host, 'U')) == 0 then
    -- Nothing to hand out now; a pending refetch (recrawl.lua) makes it due then.
    if not paused and not limited then
      local r = redis.call('ZRANGE', hkey(root, host, 'r'), 0, 0, 'WITHSCORES')
      if r[2] then return seq, fmt(math.ceil(math.max(tonumber(r[2]), not_before(root, st, d)))) end
    end
    return seq, 'park'
  end
  local due = math.huge
  local conc = tonumber(st.c) or default_conc
  if st.q > 0 and not paused and not limited and st.f < conc then
    due = not_before(root, st, d)
    if st.fa >= conc then due = math.max(due, now_ms() + OTHERS_IN_FLIGHT_POLL_MS) end
  end
  local ld = st.ld
  if not ld then
    local first = redis.call('ZRANGE', hkey(root, host, 'D'), 0, 0, 'WITHSCORES')
    ld = first[2] and tonumber(first[2]) or math.huge
  end
  -- A next-allowed time with a µs fraction is due at the next whole ms (scores are whole ms).
  return seq, fmt(math.ceil(math.min(due, ld)))
end

local function is_paused(domain_key)
  return redis.call('HGET', domain_key, 'paused') == '1'
end

-- The hosts of a domain: most domains of a wide crawl have one, and a set of one costs ~200 B
-- on Redis 7.0 (a small set of strings is a hashtable there), so the first host enqueued goes
-- to the domain hash's field 'h1' while the domain has no hosts set R..'H'; every other host
-- (and every host of a domain whose set exists already, or given a policy or a block) goes
-- to the set. A host is in one of the two, never both.
local function host_add(root, dkey, host)
  local first = redis.call('HGET', dkey, 'h1')
  if first == host then return end
  if not first and redis.call('EXISTS', root .. 'H') == 0 then
    redis.call('HSET', dkey, 'h1', host)
  else
    redis.call('SADD', root .. 'H', host)
  end
end

-- A host given a policy or a block joins the domain's hosts unless it is the first one; it
-- never becomes the first (a policy alone gives a domain no counter hash).
local function host_note(root, dkey, host)
  if redis.call('HGET', dkey, 'h1') ~= host then redis.call('SADD', root .. 'H', host) end
end

local function hosts_of(root, dkey)
  local hosts = redis.call('SMEMBERS', root .. 'H')
  local first = redis.call('HGET', dkey, 'h1')
  if first then table.insert(hosts, 1, first) end
  return hosts
end
