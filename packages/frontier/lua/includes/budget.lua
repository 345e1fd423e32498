--[[
  Refilling budget of a domain (`--domain-budget 1000/1d`): at most `budget` claims per
  window of `period` ms. Kept in the domain hash, so it survives restarts and moves with
  the domain: 'bw' window start (ms), 'bn' claims in the window, 'be' set while the budget
  is spent to the window's end, when the hosts come due again (host.lua's not_before reads
  it). Nothing is dropped: the URLs stay queued. Needs time.lua.
]]

-- Takes one claim from the budget; false when it is spent. Starts a new window when the
-- last one ended. `d` is the domain's domain_state (host.lua) with bw and bn, kept current
-- here (so is d.be, which not_before reads).
local function budget_take(dkey, now, budget, period, d)
  if budget <= 0 then return true end
  if now >= d.bw + period then
    d.bw, d.bn, d.be = now, 0, 0
    redis.call('HSET', dkey, 'bw', fmt(now), 'bn', 0)
    redis.call('HDEL', dkey, 'be')
  end
  if d.bn >= budget then
    d.be = d.bw + period
    redis.call('HSET', dkey, 'be', fmt(d.be))
    return false
  end
  d.bn = redis.call('HINCRBY', dkey, 'bn', 1)
  if d.bn >= budget then
    d.be = d.bw + period
    redis.call('HSET', dkey, 'be', fmt(d.be))
  end
  return true
end

-- A lease released unfetched (release-2.lua: no request was sent) gives back the claim it
-- took, when it took it in the current window (`claimed`, ms, not before the window's
-- start): the window has one claim more to hand out, so the budget is not spent any more.
-- Else a pod that gives a URL back (its host's robots.txt took the gap first, a stop) would
-- spend the budget on nothing: at 1/1h, no page for an hour.
local function budget_refund(dkey, claimed)
  local w = redis.call('HMGET', dkey, 'bw', 'bn')
  local bn = tonumber(w[2]) or 0
  if bn <= 0 or claimed < (tonumber(w[1]) or 0) then return end
  redis.call('HINCRBY', dkey, 'bn', -1)
  redis.call('HDEL', dkey, 'be')
end
