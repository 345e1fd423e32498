#!lua flags=allow-oom
--[[
  heartbeat: join the registry or renew the session; expire the sessions of others.

  A pod calls it at start (mode 'join') and every heartbeat period (mode 'beat'). Time
  comes from Redis TIME: a session ends at TIME + timeout, pods' clocks are never used.

  KEYS[1] members   ZSET pod -> session expiry (Redis ms)
  KEYS[2] meta      HASH pod -> "<weight>\t<startedAtMs>\t<instance>\t<info>"
  KEYS[3] epoch     STRING ring epoch (monotone)
  KEYS[4] config    HASH vnodes, seed (first joiner sets them; they never change)
  KEYS[5] reclaim   ZSET removed pod -> epoch of its removal (work for survivors)
  KEYS[6] kinds     HASH removed pod -> 'crash' | 'left' | 'left-released'
  KEYS[7] pulse     STRING, exists while some pod heartbeated within the timeout
  KEYS[8] key root  "<prefix>:{m}:" (reclaim locks "<root>lock:<pod>" are built from it)
  ARGV[1] pod id
  ARGV[2] session timeout (ms)
  ARGV[3] weight (decimal text)
  ARGV[4] instance id (random per process start)
  ARGV[5] info (host, pid: diagnostics only)
  ARGV[6] mode: 'join' | 'take' | 'beat'. 'join' leaves a live session of the id held by
          another instance untouched (status 4: the caller finds out whether that instance
          still beats, membership.ts); 'take' then takes it over as a restart (status 2);
          'beat' finding another instance's session writes nothing either (status 5)
  ARGV[7] epoch the caller knows (0 = none); the view is returned when it differs
  ARGV[8] vnodes proposed for the ring config
  ARGV[9] seed proposed for the ring config
  ARGV[10] epoch channel (pub/sub)

  Returns { status, nowMs, lockHeld (0|1), cancelled (0|1), nReclaim, pod1, epoch1, kind1, ...,
            [epoch, vnodes, seed, nMembers, pod1, weight1, ...] (only when the epoch
            differs from ARGV[7]) }.
  status: 0 renewed, 1 joined as a new member (epoch bumped), 2 same id re-joined by a
  new instance inside its session (restart: no epoch bump), 3 the caller's session had
  been expired by others and it joined again (epoch bumped), 4 ('join' only) another
  instance holds the id's live session: nothing of it was written. 5 ('beat' only) the
  session is another instance's: it took this one's over while this one was stalled
  (status 4, then 'take'), so this instance is superseded and must stop; nothing written.
  lockHeld: a survivor holds the reclaim lock of the caller's id (wait before claiming).
  cancelled: this join removed a pending reclaim of the caller's id (the caller must
  requeue its previous incarnation's leases itself).
  Side effects: removes members whose expiry < now (except the caller), records them in
  reclaim/kinds; on any change of the member list or a weight: INCR epoch and PUBLISH it.
  If no pod heartbeated within the timeout (the registry was unreachable, e.g. Redis
  restarted), every session is renewed instead of expired: a store outage is not a crash
  of every pod.
  Flagged allow-oom (runs while Redis is full): renews a session in place: a full Redis must not declare every pod dead.
]]
--@include "time"
--@include "view"

local members, meta, epoch_key, config = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local reclaim, kinds, pulse, root = KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local pod, timeout, weight = ARGV[1], tonumber(ARGV[2]), ARGV[3]
local instance, info, mode, known = ARGV[4], ARGV[5], ARGV[6], tonumber(ARGV[7])
local now = now_ms()
local changed = false
local removed = {}
local cancelled = 0

if redis.call('EXISTS', pulse) == 0 then
  -- Grace after an outage of the store: give every recorded session a fresh timeout.
  local all = redis.call('ZRANGE', members, 0, -1)
  for _, m in ipairs(all) do redis.call('ZADD', members, now + timeout, m) end
else
  local expired = redis.call('ZRANGEBYSCORE', members, '-inf', '(' .. now)
  for _, m in ipairs(expired) do
    if m ~= pod then
      redis.call('ZREM', members, m)
      redis.call('HDEL', meta, m)
      removed[#removed + 1] = m
      changed = true
    end
  end
end
redis.call('SET', pulse, '1', 'PX', timeout)

local status = 0
local old = redis.call('HGET', meta, pod)
local alive = redis.call('ZSCORE', members, pod)
if not alive then
  status = (mode == 'beat') and 3 or 1
  changed = true
  redis.call('HSET', meta, pod, weight .. '\t' .. now .. '\t' .. instance .. '\t' .. info)
  -- Joining again cancels a pending reclaim of this id (a reclaim in progress keeps its
  -- lock; the caller waits for the lock to go before claiming).
  cancelled = redis.call('ZREM', reclaim, pod)
  redis.call('HDEL', kinds, pod)
else
  local w = member_weight(old)
  local prev_instance = ''
  if old then
    local parts = {}
    for field in string.gmatch(old, '([^\t]*)\t?') do parts[#parts + 1] = field end
    prev_instance = parts[3] or ''
  end
  if prev_instance ~= instance and prev_instance ~= '' and mode ~= 'take' then
    status = (mode == 'join') and 4 or 5
  else
    if w ~= weight then changed = true end
    if mode == 'take' and prev_instance ~= instance then status = 2 end
    if w ~= weight or prev_instance ~= instance then
      redis.call('HSET', meta, pod, weight .. '\t' .. now .. '\t' .. instance .. '\t' .. info)
    end
  end
end
if status < 4 then redis.call('ZADD', members, now + timeout, pod) end
redis.call('HSETNX', config, 'vnodes', ARGV[8])
redis.call('HSETNX', config, 'seed', ARGV[9])

if changed then
  -- Never let the epoch go backwards, even if the store lost it (no persistence).
  local cur = tonumber(redis.call('GET', epoch_key) or '0')
  if cur < known then redis.call('SET', epoch_key, known) end
  local epoch = redis.call('INCR', epoch_key)
  for _, m in ipairs(removed) do
    redis.call('ZADD', reclaim, epoch, m)
    redis.call('HSET', kinds, m, 'crash')
  end
  redis.call('PUBLISH', ARGV[10], epoch)
end

local reply = { status, fmt(now), redis.call('EXISTS', root .. 'lock:' .. pod), cancelled }
local pending = redis.call('ZRANGE', reclaim, 0, -1, 'WITHSCORES')
reply[#reply + 1] = #pending / 2
for i = 1, #pending, 2 do
  reply[#reply + 1] = pending[i]
  reply[#reply + 1] = pending[i + 1]
  reply[#reply + 1] = redis.call('HGET', kinds, pending[i]) or 'crash'
end
local epoch_now = tonumber(redis.call('GET', epoch_key) or '0')
if epoch_now ~= known then append_view(reply, members, meta, epoch_key, config) end
return reply
