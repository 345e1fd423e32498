--[[
  Adaptive delay of a host (Heritrix's delay factor, with CCBot's back-off on errors): a
  slow host is asked less often, a failing one much less, and a host that is fast again
  decays back to its minimum. Kept in the host's politeness hash (host.lua's pkey, shared
  by every crawl of the host; fields 'ad' delay in ms and 'ar' why: 's' slow responses,
  'e' server errors or timeouts), so it survives restarts and travels with the domain. Needs host.lua (hkey) and time.lua (fmt).

  factor    delay = factor x response time (ms); 0 = adaptive delay off
  min_ms    the host's floor (its configured delay or the default): at or below it the
            adaptive state is dropped
  max_ms    cap of the adaptive delay
]]

-- A response arrived in `duration` ms: grow at once to factor x duration when that is
-- higher, else halve towards it (one fast response does not undo a slow spell). `st` is the
-- host's host_state: the delay is taken from it and its ad kept current.
local function adaptive_on_response(skey, st, factor, duration, min_ms, max_ms)
  if factor <= 0 then return end
  local cur = tonumber(st.ad) or 0
  local target = math.min(max_ms, math.floor(factor * duration))
  local new = target
  if target < cur then new = math.max(target, math.floor(cur / 2)) end
  if new <= min_ms then
    redis.call('HDEL', skey, 'ad', 'ar')
    st.ad = nil
  elseif new >= cur then
    redis.call('HSET', skey, 'ad', fmt(new), 'ar', 's')
    st.ad = fmt(new)
  else
    redis.call('HSET', skey, 'ad', fmt(new))
    st.ad = fmt(new)
  end
end

-- A request went out and the host answered 5xx/429 or timed out: double the adaptive
-- delay (at least twice the floor, at least factor x the time it took), up to the cap.
local function adaptive_on_server_error(skey, factor, duration, min_ms, max_ms)
  if factor <= 0 then return end
  local cur = tonumber(redis.call('HGET', skey, 'ad')) or 0
  local new = math.min(max_ms, math.max(cur * 2, min_ms * 2, math.floor(factor * duration)))
  redis.call('HSET', skey, 'ad', fmt(new), 'ar', 'e')
end
