--[[
  Takes one lease back (expired, or its holder is dead): the entry goes back to the front
  of its level with attempt+1, or to the dead letters once its failed attempts exceed max_retries.
  Counts a repeat per domain. Returns the holder and 'requeued' | 'dead'.
  Needs host.lua, queue.lua and deadletter.lua.
]]
local function lease_requeue(root, domain_key, host, field, now, max_retries, dead_cap, reason)
  local lk = hkey(root, host, 'L')
  local v = redis.call('HGET', lk, field)
  if not v then return nil end
  redis.call('HDEL', lk, field)
  redis.call('ZREM', hkey(root, host, 'D'), field)
  if not lease_slot_freed(root, host, field) then flight_add(root, host, -1) end
  redis.call('HINCRBY', domain_key, 'f', -1)
  redis.call('HINCRBY', domain_key, 'rep', 1)
  local _, holder, _, level, entry = lease_parse(v)
  local depth, attempt, rest = entry_parse(entry)
  attempt = attempt + 1
  local next_entry = depth .. ',' .. attempt .. ',' .. rest
  if attempt > max_retries then
    dead_letter(root, domain_key, host, level, next_entry, reason, 0, now, dead_cap)
    return holder, 'dead'
  end
  queue_push(root, host, level, next_entry, true)
  redis.call('HINCRBY', domain_key, 'q', 1)
  return holder, 'requeued'
end
