--[[
  sweep-claim: at most one pod runs the stranded-domain sweep per interval.

  KEYS[1] sweep lock   STRING holder, expires after the interval (never released early)
  KEYS[2] sweep cursor STRING offset into the domains index where the next sweep starts
  ARGV[1] caller pod id
  ARGV[2] interval (ms)

  Returns the cursor (>= 0) when the caller won this interval, -1 otherwise.
]]

if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', tonumber(ARGV[2])) then return -1 end
return tonumber(redis.call('GET', KEYS[2]) or '0')
