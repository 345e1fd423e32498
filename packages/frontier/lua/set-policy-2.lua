#!lua
--[[
  set-policy: per-host politeness overrides, e.g. the robots.txt crawl-delay.

  KEYS[1] domain hash  R..'d'
  KEYS[2] key root     R
  ARGV[1] host
  ARGV[2] concurrency ('' = unchanged, '-' = back to the default)
  ARGV[3] delay between request starts (ms) ('' = unchanged, '-' = default)
  ARGV[4] robots crawl-delay (ms) ('' = unchanged, '-' = none)
  ARGV[5] default concurrency
  ARGV[6] crawl limit: URLs of the host this crawl fetches or has out at most (host.lua
          limit_room) ('' or absent = unchanged, '-' = none)

  Returns { seq, score }.
  Side effects: host state c, lim, seq; dl, cd in the politeness hash (shared by all crawls); the host joins the domain's hosts set.
  The shebang makes Redis refuse the whole script while it is out of memory (a script
  without one could stop halfway, at its first write that needs memory).
]]
--@include "time"
--@include "host"

local root, host = KEYS[2], ARGV[1]
-- Concurrency is the crawl's; the delays are the host's, shared by every crawl (host.lua).
-- The crawl limit is the crawl's too.
local targets = { hkey(root, host, 's'), pkey(root, host), pkey(root, host), hkey(root, host, 's') }
local fields = { 'c', 'dl', 'cd', 'lim' }
local values = { ARGV[2], ARGV[3], ARGV[4], ARGV[6] or '' }
for i, f in ipairs(fields) do
  local v = values[i]
  if v == '-' then
    redis.call('HDEL', targets[i], f)
  elseif v ~= '' then
    redis.call('HSET', targets[i], f, v)
  end
end
host_note(root, KEYS[1], host)
local seq, score = host_schedule(root, host, is_paused(KEYS[1]), tonumber(ARGV[5]))
return { seq, score }
