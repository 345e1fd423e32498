#!lua flags=allow-oom
--[[
  complete: acknowledge a fetched URL; feeds the stats and the adaptive delay.

  KEYS[1] domain hash  R..'d'
  KEYS[2] key root     R
  ARGV[1] host
  ARGV[2] lease field ("<host>/<n>")
  ARGV[3] holder pod id
  ARGV[4] bytes received
  ARGV[5] fetch duration (ms)
  ARGV[6] links found
  ARGV[7] adaptive delay factor (delay = factor x duration; 0 = off; see adaptive.lua)
  ARGV[8] max delay (ms), caps the adaptive delay
  ARGV[9] default delay (ms)
  ARGV[10] default concurrency
  ARGV[11] default refetch interval (ms) for URLs without their own; 0 = none (recrawl.lua)
  ARGV[12] adaptive refetch: '1' | '0'
  ARGV[13] least refetch interval (ms) when adaptive
  ARGV[14] greatest refetch interval (ms) when adaptive
  ARGV[15] content changed: '1' | '0' | '' unknown
  ARGV[16] validators: '' keep the stored ones, else '=' followed by the new ones
  ARGV[17] ms since the request was sent, by the pod's monotonic clock, µs fractions allowed
          ('' or 0 = unknown)
  ARGV[18] the caller's schedule (ms), beating the URL's interval and ARGV[11]: '' (or absent)
           none given; '0' done, never refetched; n > 0 fetched again n ms from now

  Returns { status, seq, score, rescheduled (1 | 0) }: status 0 ok, 1 lease not found (counted as a late
  completion: the URL was already requeued), 2 held by another pod.
  Side effects: lease removed; host f, dn +1 (host.lua), fc=0, bo=0, ad/ar, n = max(n, sent + effective delay)
  (see "start of the request" below) unless free-slot-2.lua already did that for the lease;
  domain counters
  f, ok, bytes, ms, links (or late); with a refetch interval the entry goes to the host's
  refetch schedule (domain q, rs +1).
  Flagged allow-oom (runs while Redis is full): removes a lease and bumps counters: it shrinks state, and refusing it under OOM would turn every finished fetch into a repeat. A refetch it schedules takes the place of the lease it removes (about the same size).
]]
--@include "time"
--@include "host"
--@include "queue"
--@include "adaptive"
--@include "recrawl"

local dkey, root = KEYS[1], KEYS[2]
local host, field, holder = ARGV[1], ARGV[2], ARGV[3]
local lk = hkey(root, host, 'L')
local v = redis.call('HGET', lk, field)
if not v then
  redis.call('HINCRBY', dkey, 'late', 1)
  return { 1, 0, '', 0 }
end
local _, who, claimed_at, level, entry = lease_parse(v)
if who ~= holder then return { 2, 0, '', 0 } end
local now = now_ms()
local pk = pkey(root, host) -- politeness fields, shared by every crawl of the host
redis.call('HDEL', lk, field)
redis.call('ZREM', hkey(root, host, 'D'), field)
-- Freed earlier (free-slot-2.lua): in flight and the host's politeness were settled then.
local freed = lease_slot_freed(root, host, field)
-- One read of the host and one of the domain: the changes below are kept in st and d, and
-- saved with one write each (the host's with its new seq, in host_schedule).
local st = host_state(root, host)
local d = domain_state(root, { 'f', 'ok', 'bytes', 'ms', 'links' })
if not freed then flight_note(root, host, st, -1) end
domain_add(dkey, d, { 'f', -1, 'ok', 1, 'bytes', tonumber(ARGV[4]), 'ms', tonumber(ARGV[5]),
  'links', tonumber(ARGV[6]) })
host_set(st, 'dn', st.dn + 1) -- the host's fetches, for its crawl limit
if not freed then
  -- A success ends a failure streak and its backoff (written only when there is one).
  if st.fc > 0 or st.bo then
    redis.call('HDEL', pk, 'fc', 'bo')
    st.fc, st.bo = 0, nil
  end
  adaptive_on_response(pk, st, tonumber(ARGV[7]), tonumber(ARGV[5]), tonumber(st.dl) or tonumber(ARGV[9]), tonumber(ARGV[8]))
  -- Start of the request: the gap is start-to-start, so it counts from the send, not from now.
  -- The pod passes a duration (never its clock: skew cannot move it) measured before this call
  -- was sent; time.lua's sent_at_ms turns it into a send time at or after the real one.
  local since_sent = tonumber(ARGV[17]) or 0
  local sent_at = now
  if since_sent > 0 then sent_at = sent_at_ms(since_sent, claimed_at) end
  polite_set(root, host, st, 'n', math.max(st.n, sent_at + effective_delay(st, tonumber(ARGV[9]))))
end
local validators = nil
if ARGV[16] ~= '' then validators = string.sub(ARGV[16], 2) end
local forced = tonumber(ARGV[18] or '')
local rescheduled = false
if forced ~= 0 then
  rescheduled = recrawl_schedule(root, dkey, host, level, entry, now, tonumber(ARGV[11]),
    ARGV[12] == '1', tonumber(ARGV[13]), tonumber(ARGV[14]), ARGV[15], validators, forced)
end
local seq, score = host_schedule(root, host, d.paused, tonumber(ARGV[10]), st, d)
return { 0, seq, score, rescheduled and 1 or 0 }
