--[[
  Dead letters of a domain: LIST R .. 'x', newest first, each
  "<host>\t<level>\t<reason>\t<httpStatus>\t<atMs>\t<entry>", trimmed to dead_cap entries
  (the per-domain 'dead' counter keeps the full count).
]]
local function dead_letter(root, domain_key, host, level, entry, reason, status, now, dead_cap)
  local k = root .. 'x'
  redis.call('LPUSH', k, host .. '\t' .. level .. '\t' .. reason .. '\t' .. status .. '\t' .. fmt(now) .. '\t' .. entry)
  if dead_cap > 0 then
    redis.call('LTRIM', k, 0, dead_cap - 1)
  end
  redis.call('HINCRBY', domain_key, 'dead', 1)
end
