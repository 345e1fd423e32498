--[[
  Redis server time in milliseconds. Every script takes "now" from here, never from the
  caller: pods' clocks skew, and politeness is judged cluster-wide.
]]
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- Scores and times leave scripts as strings: Lua numbers become integer replies (and
-- +inf does not survive that), so the decoder always parses text.
local function fmt(x)
  if x == math.huge then return 'inf' end
  return string.format('%d', x)
end
