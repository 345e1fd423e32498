--[[
  Redis server time in milliseconds. Every script takes "now" from here, never from the
  caller: pods' clocks skew, and politeness is judged cluster-wide.
]]
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

--[[
  When a request was sent, in Redis ms with a µs fraction, from the pod's monotonic duration
  since the send (ms, with µs fractions): Redis TIME in µs minus the duration, rounded UP to
  the µs. The pod measures the duration before it sends this call, so the result is at or
  after the real send (skew of the pod's wall clock cannot move it). Never before `floor_ms`
  (the claim: a bogus duration cannot move a gap earlier than the claim's own reservation).
  The host's next slot (send + delay) keeps the fraction (fmt_at): rounding it up to the ms
  would add ~0.5 ms to every gap, 1% of a 50 ms delay.
]]
local function sent_at_ms(since_sent_ms, floor_ms)
  local t = redis.call('TIME')
  local now_us = tonumber(t[1]) * 1000000 + tonumber(t[2])
  return math.max(floor_ms, math.ceil(now_us - since_sent_ms * 1000) / 1000)
end

-- Scores and times leave scripts as strings: Lua numbers become integer replies (and
-- +inf does not survive that), so the decoder always parses text. Whole ms: a fraction is
-- cut, so a time that may carry one (fmt_at) is rounded up before it comes here.
local function fmt(x)
  if x == math.huge then return 'inf' end
  return string.format('%d', x)
end

-- A point in time in ms that may carry a µs fraction (a host's next-allowed time 'n', a
-- lease's start): whole ms as fmt does, else three decimals rounded UP to the µs, so that
-- writing it down never moves a politeness gap earlier. A double near 1.8e12 ms resolves
-- ~0.25 µs, so a value read back from its text sits within that of its µs: those 0.3 µs
-- are not rounded up again (reading and writing a time leaves it as it was).
local function fmt_at(x)
  if x == math.huge or x == math.floor(x) then return fmt(x) end
  return string.format('%.3f', math.ceil(x * 1000 - 0.3) / 1000)
end
