#!lua flags=allow-oom
--[[
  crawl-drop: deletes every key of ONE domain in ONE non-default crawl: each host's queue
  levels and lists (a small queue, folded into the host's 's' hash, goes with it), leases and deadlines, refetch schedule, scheduling state; the
  domain's seen-set buckets, dead letters, hosts set and counter hash. Never the
  politeness keys under the default crawl's root (host.lua), which every crawl shares.
  UNLINK frees the memory in the background. Idempotent: a crashed deletion runs it again.

  KEYS[1] domain hash  R..'d'
  KEYS[2] key root     R   (must be a crawl root '<prefix>:{d:<domain>}:c:<crawl>:')
  ARGV[1] the domain's archive hash (keys.ts archive(), same Cluster slot; '' or absent =
          none): the crawl's field there, an archived domain (archive.lua), goes too

  Side effect on the shared keys: the crawl's leases still out leave the hosts' count of
  requests in flight ('fx', host.lua).
  Returns the number of keys removed, or -1 when R is the default crawl's root (refused:
  its keys hold every crawl's politeness).
  Side effects: the keys above are gone.
  Flagged allow-oom (runs while Redis is full): it only frees memory.
]]
--@include "time"
--@include "host"
--@include "queue"

local dkey, root = KEYS[1], KEYS[2]
if polite_root(root) == root then return -1 end
local removed = 0
local function drop(key)
  removed = removed + redis.call('UNLINK', key)
end
local proot = polite_root(root)
for _, host in ipairs(hosts_of(root, dkey)) do
  -- Its leases end with it: the host's count of other crawls' requests in flight drops.
  local f = tonumber(redis.call('HGET', hkey(root, host, 's'), 'f')) or 0
  if f > 0 then redis.call('HINCRBY', hkey(proot, host, 's'), 'fx', -f) end
  for _, level in ipairs(levels_all(root, host)) do
    drop(hkey(root, host, 'q:' .. level))
  end
  for _, due in ipairs(redis.call('ZRANGE', hkey(root, host, 'r'), 0, -1)) do
    drop(hkey(root, host, 'r:' .. due))
  end
  for _, suffix in ipairs({ 'l', 'r', 'L', 'D', 'U', 's' }) do drop(hkey(root, host, suffix)) end
end
-- Seen buckets: 2^sL + sS of them (seen.lua's linear hashing).
local s = redis.call('HMGET', dkey, 'sL', 'sS')
local buckets = 2 ^ (tonumber(s[1]) or 0) + (tonumber(s[2]) or 0)
for b = 0, buckets - 1 do drop(root .. 's:' .. b) end
drop(root .. 'x')
drop(root .. 'H')
drop(dkey)
if ARGV[1] and ARGV[1] ~= '' then
  local domain, tail = string.match(root, '{d:(.*)}:(.*)$')
  removed = removed + redis.call('HDEL', ARGV[1], tail .. domain)
end
return removed
