#!lua flags=allow-oom
--[[
  spill: moves names of a pod's backlog (hosts of packed domains, index-update-3.lua) into
  its due index, due now, so that the moves that read a pod's due index (a departed or
  removed pod's reindex) see them too. One script: no name is ever in neither.

  KEYS[1] due index   ZSET member "<domain>/<host>" -> due ms
  KEYS[2] due meta    HASH (untouched; named for the slot)
  KEYS[3] backlog     LIST of members
  ARGV[1] most names to move

  Returns the names left in the backlog.
  Flagged allow-oom (runs while Redis is full): it moves a dead pod's backlog, which must not
  wait for room (a name costs ~100 B more in the index than in the backlog).
]]
--@include "time"

local now = now_ms()
for _, m in ipairs(redis.call('LPOP', KEYS[3], tonumber(ARGV[1])) or {}) do
  -- LT: an entry already there (at +inf after an older update) is brought down to now.
  redis.call('ZADD', KEYS[1], 'LT', now, m)
end
return redis.call('LLEN', KEYS[3])
