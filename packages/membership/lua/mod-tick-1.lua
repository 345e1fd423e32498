--[[
  mod-tick: one registration of a pod for the modulo assignment. Time is cut into
  intervals of Redis TIME; in each interval every live pod INCRs the interval's counter
  once (at its own random phase) and gets its arrival rank. The previous interval is
  closed (Redis TIME has left it), so its rank list is final and identical for every pod:
  it is the replica list the modulo mapping uses.

  KEYS[1] key root  "<prefix>:{m}:mod:" (interval keys "<root><k>" counter,
                    "<root><k>:who" HASH rank -> pod, "<root><k>:rank" HASH pod -> rank)
  ARGV[1] pod id
  ARGV[2] interval (ms)

  Returns { k, rank, msToNextInterval, nPrev, pod(rank 1), pod(rank 2), ... } for the
  previous interval k-1.
  Side effects: INCR and two HSETs in interval k (once per pod and interval), all three
  keys expire after 3 intervals.
]]
--@include "time"

local root, pod, interval = KEYS[1], ARGV[1], tonumber(ARGV[2])
local now = now_ms()
local k = math.floor(now / interval)
local base = root .. k
local rank = tonumber(redis.call('HGET', base .. ':rank', pod) or '0')
if rank == 0 then
  rank = redis.call('INCR', base)
  redis.call('HSET', base .. ':rank', pod, rank)
  redis.call('HSET', base .. ':who', rank, pod)
  for _, key in ipairs({ base, base .. ':rank', base .. ':who' }) do
    redis.call('PEXPIRE', key, 3 * interval)
  end
end
local prev = redis.call('HGETALL', root .. (k - 1) .. ':who')
local by_rank = {}
local n = 0
for i = 1, #prev, 2 do
  by_rank[tonumber(prev[i])] = prev[i + 1]
  n = math.max(n, tonumber(prev[i]))
end
local reply = { fmt(k), rank, fmt((k + 1) * interval - now), 0 }
local count = 0
for r = 1, n do
  if by_rank[r] then
    reply[#reply + 1] = by_rank[r]
    count = count + 1
  end
end
reply[4] = count
return reply
