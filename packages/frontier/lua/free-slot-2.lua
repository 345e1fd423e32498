#!lua flags=allow-oom
--[[
  free-slot: the fetch of a lease got its answer, but the lease stays out while the pod's
  page handler runs. Frees the host's politeness slot now, so a slow handler holds no
  concurrency and does not push the host's next request: settles the host as complete-2.lua
  would (in flight, failure count, backoff, adaptive delay, next_allowed_at), and marks the
  lease freed so that its end (complete, fail, release, or a reap after a crash) leaves the
  host alone. The lease itself (record, deadline, heartbeat) is untouched: a pod that dies
  while its handler runs leaves it to be reaped and fetched again.

  KEYS[1] domain hash  R..'d'
  KEYS[2] key root     R   (host keys; the mark goes in R..'h:<host>:U')
  ARGV[1] host
  ARGV[2] lease field ("<host>/<n>")
  ARGV[3] holder pod id
  ARGV[4] fetch duration (ms), feeds the adaptive delay
  ARGV[5] adaptive delay factor (0 = off; see adaptive.lua)
  ARGV[6] max delay (ms), caps the adaptive delay
  ARGV[7] default delay (ms)
  ARGV[8] default concurrency
  ARGV[9] ms since the request was sent, by the pod's monotonic clock, µs fractions allowed
          ('' or 0 = unknown): the gap counts from the send, as in complete-2.lua

  Returns { status, seq, score }: status 0 ok (also when the slot was already freed: nothing
  changes then), 1 lease not found, 2 held by another pod.
  Side effects: host f -1, fc and bo cleared, ad/ar, n = max(n, sent + effective delay), seq;
  lease field added to the host's U set. Domain counters are untouched (the lease is still
  out: domain f counts it until it ends).
  Flagged allow-oom (runs while Redis is full): frees a slot and adds one set member; refusing
  it would hold the host's slot for the whole handler.
]]
--@include "time"
--@include "host"
--@include "adaptive"

local dkey, root = KEYS[1], KEYS[2]
local host, field, holder = ARGV[1], ARGV[2], ARGV[3]
local v = redis.call('HGET', hkey(root, host, 'L'), field)
if not v then return { 1, 0, '' } end
local _, who, claimed_at = lease_parse(v)
if who ~= holder then return { 2, 0, '' } end
local default_delay = tonumber(ARGV[7])
if redis.call('SADD', hkey(root, host, 'U'), field) == 1 then
  local now = now_ms()
  flight_add(root, host, -1)
  local pk = pkey(root, host) -- politeness fields, shared by every crawl of the host
  redis.call('HDEL', pk, 'fc', 'bo')
  local st = host_state(root, host)
  adaptive_on_response(pk, st, tonumber(ARGV[5]), tonumber(ARGV[4]), tonumber(st.dl) or default_delay, tonumber(ARGV[6]))
  -- As complete-2.lua: a send time at or after the real one (time.lua's sent_at_ms).
  local since_sent = tonumber(ARGV[9]) or 0
  local sent_at = now
  if since_sent > 0 then sent_at = sent_at_ms(since_sent, claimed_at) end
  redis.call('HSET', pk, 'n', fmt_at(math.max(st.n, sent_at + effective_delay(st, default_delay))))
end
local seq, score = host_schedule(root, host, is_paused(dkey), tonumber(ARGV[8]))
return { 0, seq, score }
