#!lua flags=allow-oom
--[[
  drop-host: deletes the URLs waiting in one host's queue and refetch schedule (URLFrontier's
  DeleteQueue). Leases already out are left to finish (settled, or requeued at their
  deadline as usual). The URLs stay in the seen-set: discovering them again does not queue
  them again. The host's politeness state (shared by every crawl) is kept.

  KEYS[1] domain hash  R..'d'
  KEYS[2] key root     R      (host keys R..'h:<host>:l|q:<lvl>|r|r:<due>|s', host.lua; a
                              small queue is field Q of the 's' hash)
  ARGV[1] host
  ARGV[2] default concurrency
  ARGV[3] archive hash of the domain, or '': a packed domain (archive.lua) is unfolded first
  ARGV[4] seen bucket load, ARGV[5] most fingerprints inline (seen.lua; for the unfolding)

  Returns { queuedRemoved, scheduledRemoved, seq, score, unpacked }: URLs deleted from the
  queue and from the refetch schedule, the host's new due-index score, and '' or
  "<ok>,<errors>,<queued>" when a packed domain was unfolded (claim-2.lua).
  Side effects: the host's folded queue (Q), level set, queue lists and refetch buckets
  deleted; host q = 0; domain q -= both counts, rs -= scheduled, dropped += both; host seq.
  Flagged allow-oom (runs while Redis is full): it only deletes.
]]
--@include "time"
--@include "host"
--@include "queue"
--@include "seen"
--@include "archive"

local dkey, root = KEYS[1], KEYS[2]
local host = ARGV[1]
local unpacked = archive_unpack(root, dkey, ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]))
local queued = 0
local skey = hkey(root, host, 's')
-- A small queue is folded into the host state hash (queue.lua), a bigger one in lists.
local packed = redis.call('HGET', skey, 'Q')
if packed then
  queued = #fold_parse(packed)
  redis.call('HDEL', skey, 'Q')
end
local lk = hkey(root, host, 'l')
for _, level in ipairs(levels_all(root, host)) do
  local qk = hkey(root, host, 'q:' .. level)
  queued = queued + redis.call('LLEN', qk)
  redis.call('UNLINK', qk)
end
redis.call('UNLINK', lk)
redis.call('HDEL', skey, 'lv')
local scheduled = 0
local rk = hkey(root, host, 'r')
for _, due in ipairs(redis.call('ZRANGE', rk, 0, -1)) do
  local bk = rk .. ':' .. due
  scheduled = scheduled + redis.call('LLEN', bk)
  redis.call('UNLINK', bk)
end
redis.call('UNLINK', rk)
if redis.call('EXISTS', skey) == 1 then redis.call('HSET', skey, 'q', 0) end
local total = queued + scheduled
if total > 0 then
  redis.call('HINCRBY', dkey, 'q', -total)
  if scheduled > 0 then redis.call('HINCRBY', dkey, 'rs', -scheduled) end
  redis.call('HINCRBY', dkey, 'dropped', total)
end
local seq, score = host_schedule(root, host, is_paused(dkey), tonumber(ARGV[2]))
return { queued, scheduled, seq, score, unpacked and table.concat(unpacked, ',') or '' }
