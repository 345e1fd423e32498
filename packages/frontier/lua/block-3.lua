--[[
  block: an operator keeps a host, or a whole domain, from being asked until a time
  (URLFrontier's BlockQueueUntil; `shardline pause --until`). Unlike pause it ends by
  itself; the blocked hosts wait in their owner's due index until then. The time lives
  in the domain's keys, so it survives restarts and moves with the domain.

  KEYS[1] domain hash  R..'d'
  KEYS[2] hosts set    R..'H' (with the domain hash's 'h1': host.lua hosts_of)
  KEYS[3] key root     R
  ARGV[1] host, or '' for the whole domain (field 'bu' of the domain hash under P, host.lua)
  ARGV[2] blocked until (Redis ms); 0 lifts the block
  ARGV[3] default concurrency

  Returns { host1, seq1, score1, ... }: the re-scored host, or every host of the domain.
  Side effects: 'bu' of the host state or the domain hash; host seqs; a blocked host
  joins the domain's hosts set.
]]
--@include "time"
--@include "host"

local dkey, root = KEYS[1], KEYS[3]
local host, untilMs = ARGV[1], tonumber(ARGV[2])
-- Blocks are host-wide: they go to the politeness hashes shared by every crawl (host.lua);
-- other crawls' entries are re-scored when they next try to claim.
local target = polite_root(root) .. 'd'
if host ~= '' then
  target = pkey(root, host)
  host_note(root, dkey, host)
end
if untilMs > 0 then
  redis.call('HSET', target, 'bu', fmt(untilMs))
else
  redis.call('HDEL', target, 'bu')
end
local hosts = { host }
if host == '' then hosts = hosts_of(root, dkey) end
local paused = is_paused(dkey)
local reply = {}
for _, h in ipairs(hosts) do
  local seq, score = host_schedule(root, h, paused, tonumber(ARGV[3]))
  reply[#reply + 1] = h
  reply[#reply + 1] = seq
  reply[#reply + 1] = score
end
return reply
