#!lua flags=allow-oom
--[[
  fail: a fetch failed. Retryable failures back the host off (exponential, with jitter)
  and requeue the URL at the back of its level with attempt+1; after max retries, or when
  not retryable, the URL goes to the domain's dead letters with the reason.

  KEYS[1] domain hash  R..'d'
  KEYS[2] key root     R   (host keys, dead letters R..'x')
  ARGV[1] host
  ARGV[2] lease field
  ARGV[3] holder pod id
  ARGV[4] retryable: '1' | '0'
  ARGV[5] Retry-After (ms from now); 0 = none. Pushes the host's next_allowed_at.
  ARGV[6] reason (short text, no tabs; its message after a line feed, see codec.ts)
  ARGV[7] HTTP status (0 = none)
  ARGV[8] max retries
  ARGV[9] backoff base (ms): backoff = min(max, base x 2^(consecutive failures-1)) x
          (0.5 + 0.5 x jitter)
  ARGV[10] backoff max (ms)
  ARGV[11] jitter in [0, 1] (random, supplied by the caller)
  ARGV[12] dead-letter cap per domain
  ARGV[13] default delay (ms)
  ARGV[14] default concurrency
  ARGV[15] sent: '1' a request went out (default), '0' refused before sending (robots,
           DNS, address policy). Unsent failures leave the host's politeness alone: no
           backoff, no consecutive-failure count, next_allowed_at untouched (the claim
           already reserved the slot), Retry-After ignored.
  ARGV[16] adaptive delay factor (0 = off): a retryable sent failure (5xx, 429, timeout,
           network error) doubles the host's adaptive delay (adaptive.lua)
  ARGV[17] max delay (ms), caps the adaptive delay
  ARGV[18] time the failed request took (ms; 0 = unknown)

  Returns { status, outcome ('retry' | 'dead' | ''), attempt, seq, score }: status 0 ok,
  1 lease not found, 2 held by another pod.
  Side effects: lease removed; host f (and fc, bo, ad/ar, n when sent; neither when the lease's
  slot was freed by free-slot-2.lua, which settled them); domain f, err, q or dead;
  dead letters.
  Flagged allow-oom (runs while Redis is full): moves a lease back to its queue or to the dead letters: about the same memory, and refusing it would leave the lease to expire.
]]
--@include "time"
--@include "host"
--@include "queue"
--@include "deadletter"
--@include "adaptive"

local dkey, root = KEYS[1], KEYS[2]
local host, field, holder = ARGV[1], ARGV[2], ARGV[3]
local retryable = ARGV[4] == '1'
local retry_after = tonumber(ARGV[5])
local sent = ARGV[15] ~= '0'
local freed = false
local lk = hkey(root, host, 'L')
local v = redis.call('HGET', lk, field)
if not v then
  redis.call('HINCRBY', dkey, 'late', 1)
  return { 1, '', 0, 0, '' }
end
local _, who, _, level, entry = lease_parse(v)
if who ~= holder then return { 2, '', 0, 0, '' } end
local now = now_ms()
local pk = pkey(root, host) -- politeness fields, shared by every crawl of the host
redis.call('HDEL', lk, field)
redis.call('ZREM', hkey(root, host, 'D'), field)
-- Freed earlier (free-slot-2.lua): the fetch got its answer and the host was settled then;
-- what failed since (the page handler) is not the host's doing: no backoff, no delay.
freed = lease_slot_freed(root, host, field)
if freed then sent = false else flight_add(root, host, -1) end
redis.call('HINCRBY', dkey, 'f', -1)
redis.call('HINCRBY', dkey, 'err', 1)
if retryable and sent then
  local fc = redis.call('HINCRBY', pk, 'fc', 1)
  local bo = math.min(tonumber(ARGV[10]), tonumber(ARGV[9]) * 2 ^ (fc - 1))
  bo = math.floor(bo * (0.5 + 0.5 * tonumber(ARGV[11])))
  redis.call('HSET', pk, 'bo', fmt(bo))
  local dl = tonumber(redis.call('HGET', pk, 'dl')) or tonumber(ARGV[13])
  adaptive_on_server_error(pk, tonumber(ARGV[16]) or 0, tonumber(ARGV[18]) or 0, dl, tonumber(ARGV[17]) or 0)
end
if sent then
  local st = host_state(root, host)
  local next_at = math.max(st.n, now + effective_delay(st, tonumber(ARGV[13])), now + retry_after)
  redis.call('HSET', pk, 'n', fmt_at(next_at))
end

local depth, attempt, rest = entry_parse(entry)
attempt = attempt + 1
local next_entry = depth .. ',' .. attempt .. ',' .. rest
local outcome
if (not retryable) or attempt > tonumber(ARGV[8]) then
  dead_letter(root, dkey, host, level, next_entry, ARGV[6], ARGV[7], now, tonumber(ARGV[12]))
  outcome = 'dead'
else
  queue_push(root, host, level, next_entry, false)
  redis.call('HINCRBY', dkey, 'q', 1)
  outcome = 'retry'
end
local seq, score = host_schedule(root, host, is_paused(dkey), tonumber(ARGV[14]))
return { 0, outcome, attempt, seq, score }
