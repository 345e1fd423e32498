--[[
  Redis server time in milliseconds. Every script takes "now" from here, never from the
  caller: pods' clocks skew, and politeness is judged cluster-wide.
]]
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

--[[
  When a request was sent, in Redis ms, from the pod's monotonic duration since the send
  (ms, with µs fractions): Redis TIME in µs minus the duration, rounded UP to the ms. The
  pod measures the duration before it sends this call, so the result is at or after the
  real send (skew of the pod's wall clock cannot move it); rounding up to the ms keeps it
  there while the host's times are whole ms. Never before `floor_ms` (the claim: a bogus
  duration cannot move a gap earlier than the claim's own reservation).
]]
local function sent_at_ms(since_sent_ms, floor_ms)
  local t = redis.call('TIME')
  local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
  return math.max(floor_ms, math.ceil((now_us - since_sent_ms * 1000) / 1000))
end

-- Scores and times leave scripts as strings: Lua numbers become integer replies (and
-- +inf does not survive that), so the decoder always parses text.
local function fmt(x)
  if x == math.huge then return 'inf' end
  return string.format('%d', x)
end
