#!lua
--[[
  pause / resume a domain: claim hands out nothing from a paused domain.

  KEYS[1] domain hash  R..'d'
  KEYS[2] hosts set    R..'H' (with the domain hash's 'h1': host.lua hosts_of)
  KEYS[3] key root     R
  ARGV[1] '1' pause | '0' resume
  ARGV[2] default concurrency

  Returns { host1, seq1, score1, ... } for every host of the domain (a paused host with
  nothing in flight parks; resume puts queued hosts back in their due index).
  Side effects: domain paused flag, host seqs.
  The shebang makes Redis refuse the whole script while it is out of memory (a script
  without one could stop halfway, at its first write that needs memory).
]]
--@include "time"
--@include "host"

if ARGV[1] == '1' then
  redis.call('HSET', KEYS[1], 'paused', '1')
else
  redis.call('HDEL', KEYS[1], 'paused')
end
local paused = ARGV[1] == '1'
local reply = {}
for _, host in ipairs(hosts_of(KEYS[3], KEYS[1])) do
  local seq, score = host_schedule(KEYS[3], host, paused, tonumber(ARGV[2]))
  reply[#reply + 1] = host
  reply[#reply + 1] = seq
  reply[#reply + 1] = score
end
return reply
