#!lua
--[[
  requeue-dead: move the oldest dead letters of a domain back to the back of their host
  queues with attempt 0 (operator action after fixing a cause).

  KEYS[1] domain hash  R..'d'
  KEYS[2] key root     R   (dead letters R..'x', host keys)
  ARGV[1] most entries to move
  ARGV[2] default concurrency

  Returns { moved, host1, seq1, score1, ... }.
  Side effects: dead letters popped; host queues; domain q, dead (decremented), revived.
  The shebang makes Redis refuse the whole script while it is out of memory (a script
  without one could stop halfway, at its first write that needs memory).
]]
--@include "time"
--@include "host"
--@include "queue"

local dkey, root = KEYS[1], KEYS[2]
local touched, list = {}, {}
local moved = 0
for _ = 1, tonumber(ARGV[1]) do
  local v = redis.call('RPOP', root .. 'x')
  if not v then break end
  local host, level, _, _, _, entry = string.match(v, '^([^\t]*)\t([^\t]*)\t([^\t]*)\t([^\t]*)\t([^\t]*)\t(.*)$')
  local depth, _, rest = entry_parse(entry)
  queue_push(root, host, level, depth .. ',0,' .. rest, false)
  redis.call('HINCRBY', dkey, 'q', 1)
  redis.call('HINCRBY', dkey, 'dead', -1)
  redis.call('HINCRBY', dkey, 'revived', 1)
  moved = moved + 1
  if not touched[host] then
    touched[host] = true
    list[#list + 1] = host
  end
end
local reply = { moved }
local paused = is_paused(dkey)
for _, host in ipairs(list) do
  local seq, score = host_schedule(root, host, paused, tonumber(ARGV[2]))
  reply[#reply + 1] = host
  reply[#reply + 1] = seq
  reply[#reply + 1] = score
end
return reply
