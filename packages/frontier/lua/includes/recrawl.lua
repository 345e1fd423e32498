--[[
  Recrawl: a URL with a refetch interval is not forgotten after its fetch; complete puts it
  in its host's refetch schedule and a claim visiting the host moves the due ones back to
  the queue. The schedule lives with the domain: it survives restarts and moves on handoff.
  Scheduled URLs count as queued in the domain ('q', so nothing is lost and the crawl is not
  "finished" while refetches are pending); 'rs' counts those waiting in schedules.

  Memory: a ZSET member per URL would cost ~110 B over the entry (members this long are
  never listpack-encoded), so entries wait in LISTs of due-time buckets instead, as compact
  as the queue's own lists:
    R .. 'h:' .. host .. ':r'          ZSET  bucket due time (ms) -> same; short members
    R .. 'h:' .. host .. ':r:' .. due  LIST  "<level>,<entry>" (attempt 0) due then
  A bucket's due time is the entry's, rounded UP to a power of two of ms no larger than
  interval/64, so a refetch is never early and at most 1.6 % of its interval late, and the
  URLs of a host fetched close together share a bucket.

  An entry with recrawl data has a third field "<metaLen>/<refetchMs>[/<validatorsLen>]"
  and its body starts with the validators (ASCII, see codec.ts), then meta and URL. Needs
  host.lua, queue.lua and time.lua.
]]

local function recrawl_bucket(due, interval)
  local g = 1
  while g * 2 <= interval / 64 do g = g * 2 end
  return math.ceil(due / g) * g
end

-- Moves up to `limit` due refetches of a host to its queue; returns how many.
local function recrawl_promote(root, dkey, host, now, limit)
  local rkey = hkey(root, host, 'r')
  local moved = 0
  while moved < limit do
    local b = redis.call('ZRANGEBYSCORE', rkey, '-inf', now, 'LIMIT', 0, 1)
    if #b == 0 then break end
    local lk = rkey .. ':' .. b[1]
    local members = redis.call('LPOP', lk, limit - moved) or {}
    for _, member in ipairs(members) do
      local level, entry = string.match(member, '^(%-?%d+),(.*)$')
      queue_push(root, host, level, entry, false)
    end
    moved = moved + #members
    if redis.call('LLEN', lk) == 0 then redis.call('ZREM', rkey, b[1]) end
  end
  if moved > 0 then redis.call('HINCRBY', dkey, 'rs', -moved) end
  return moved
end

--[[
  After a successful fetch: schedules the entry's refetch, if it has an interval or
  default_ms > 0. With `adaptive`, `changed` '1' halves the interval and '0' grows it by
  half, between min_ms and max_ms ('' = unknown, interval kept). `validators` replaces the
  stored ones unless nil. `forced` (ms, optional) is the caller's own schedule: it beats the
  URL's interval and default_ms, and adaptive does not change it. Returns true when scheduled.
]]
local function recrawl_schedule(root, dkey, host, level, entry, now, default_ms, adaptive, min_ms, max_ms, changed, validators, forced)
  local depth, _, rest = entry_parse(entry)
  local mlen, interval, vlen, body = string.match(rest, '^(%d+)/?(%d*)/?(%d*),(.*)$')
  interval = forced or tonumber(interval) or default_ms
  if not interval or interval <= 0 then return false end
  vlen = tonumber(vlen) or 0
  local v = string.sub(body, 1, vlen)
  local tail = string.sub(body, vlen + 1)
  if validators then v = validators end
  if adaptive and not forced then
    if changed == '1' then
      interval = math.max(min_ms, math.floor(interval / 2))
    elseif changed == '0' then
      interval = math.min(max_ms, math.floor(interval * 3 / 2))
    end
  end
  local head = mlen .. '/' .. fmt(interval)
  if #v > 0 then head = head .. '/' .. #v end
  local next_entry = depth .. ',0,' .. head .. ',' .. v .. tail
  local due = fmt(recrawl_bucket(now + interval, interval))
  local rkey = hkey(root, host, 'r')
  redis.call('RPUSH', rkey .. ':' .. due, level .. ',' .. next_entry)
  redis.call('ZADD', rkey, due, due)
  redis.call('HINCRBY', dkey, 'q', 1)
  redis.call('HINCRBY', dkey, 'rs', 1)
  return true
end
