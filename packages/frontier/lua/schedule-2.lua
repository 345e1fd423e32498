#!lua flags=allow-oom
--[[
  schedule: re-score one host without changing it (new seq), for reindexing a domain on
  another pod, repairing an index, or after a policy change made elsewhere.

  KEYS[1] domain hash  R..'d'
  KEYS[2] key root     R
  ARGV[1] host
  ARGV[2] default concurrency

  Returns { seq, score, holder1, holder2, ... }: the pods holding leases of the host (each
  once). A reindex keeps the host listed in each holder's due index, so that reclaimPod of
  a holder finds its leases in its own index alone.
  Side effects: host seq.
  Flagged allow-oom (runs while Redis is full): rewrites a host's seq and its due score only.
]]
--@include "time"
--@include "host"

local seq, score = host_schedule(KEYS[2], ARGV[1], is_paused(KEYS[1]), tonumber(ARGV[2]))
local reply = { seq, score }
local seen = {}
for _, v in ipairs(redis.call('HVALS', hkey(KEYS[2], ARGV[1], 'L'))) do
  local _, who = lease_parse(v)
  if who and not seen[who] then
    seen[who] = true
    reply[#reply + 1] = who
  end
end
return reply
