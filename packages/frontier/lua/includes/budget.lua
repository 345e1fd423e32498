--[[
  Refilling budget of a domain (`--domain-budget 1000/1d`): at most `budget` claims per
  window of `period` ms. Kept in the domain hash, so it survives restarts and moves with
  the domain: 'bw' window start (ms), 'bn' claims in the window, 'be' set while the budget
  is spent to the window's end, when the hosts come due again (host.lua's not_before reads
  it). Nothing is dropped: the URLs stay queued. Needs time.lua.
]]

-- Takes one claim from the budget; false when it is spent. Starts a new window when the
-- last one ended.
local function budget_take(dkey, now, budget, period)
  if budget <= 0 then return true end
  local v = redis.call('HMGET', dkey, 'bw', 'bn')
  local w, n = tonumber(v[1]) or 0, tonumber(v[2]) or 0
  if now >= w + period then
    w, n = now, 0
    redis.call('HSET', dkey, 'bw', fmt(w), 'bn', 0)
    redis.call('HDEL', dkey, 'be')
  end
  if n >= budget then
    redis.call('HSET', dkey, 'be', fmt(w + period))
    return false
  end
  n = redis.call('HINCRBY', dkey, 'bn', 1)
  if n >= budget then redis.call('HSET', dkey, 'be', fmt(w + period)) end
  return true
end
