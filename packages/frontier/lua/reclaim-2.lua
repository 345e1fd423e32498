#!lua flags=allow-oom
--[[
  reclaim: take back every lease of ONE host held by a pod known to be dead (the only way
  a lease is reassigned when the lease timeout is 0). Each goes back to the front of its
  level with attempt+1 (or to the dead letters past max retries), counted as a repeat.

  KEYS[1] domain hash  R..'d'
  KEYS[2] key root     R
  ARGV[1] host
  ARGV[2] holder pod id whose leases are taken back
  ARGV[3] max retries
  ARGV[4] dead-letter cap per domain
  ARGV[5] default concurrency

  Returns { requeued, deadLettered, seq, score }.
  Side effects: as lease_requeue (includes/requeue.lua) for each lease of the holder.
  Flagged allow-oom (runs while Redis is full): moves a dead pod's leases back to their queues: about the same memory.
]]
--@include "time"
--@include "host"
--@include "queue"
--@include "deadletter"
--@include "requeue"

local dkey, root = KEYS[1], KEYS[2]
local host, dead_pod = ARGV[1], ARGV[2]
local now = now_ms()
local all = redis.call('HGETALL', hkey(root, host, 'L'))
local requeued, dead = 0, 0
for i = 1, #all, 2 do
  local _, who = lease_parse(all[i + 1])
  if who == dead_pod then
    local _, what = lease_requeue(root, dkey, host, all[i], now, tonumber(ARGV[3]), tonumber(ARGV[4]), 'pod-dead')
    if what == 'dead' then dead = dead + 1 else requeued = requeued + 1 end
  end
end
local seq, score = host_schedule(root, host, is_paused(dkey), tonumber(ARGV[5]))
return { requeued, dead, seq, score }
