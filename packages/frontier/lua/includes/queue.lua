--[[
  A host's queue: entries waiting at priority levels, popped highest level first, FIFO among
  equals. Needs host.lua (hkey), included before it.

  Keys under the domain's key root R (host.lua): R .. 'h:' .. host .. ':s' (the host state
  hash: its fields q, Q and lv below), R .. 'h:' .. host .. ':l' (levels ZSET) and
  R .. 'h:' .. host .. ':q:' .. lvl (one LIST per level).
]]
--[[
  The folded queue. While a host's queue is small its entries live in ONE field of the host
  state hash, Q = the items in pop order, each "<level>,<byteLen>,<entry>" (the length, not a
  separator, ends an entry: an entry's meta may hold any byte). A host with one URL then
  costs no ZSET and no LIST (~336 B of Redis for the two keys); the hash stays
  listpack-encoded while Q is at most hash-max-listpack-value bytes (docs/operations.md).
  A push that would make the fold more than FOLD_MAX_ITEMS entries or FOLD_MAX_BYTES bytes
  moves everything to the level ZSET and lists (order kept), where the queue stays until it
  is empty again. Q and the levels never both hold entries: Q present = folded layout,
  levels present = list layout, neither = empty. (src/host-queue.ts reads both; keep in step.)

  The levels of a queue in lists: while it has one (the usual case, one priority), the host
  state hash's field 'lv' (a ZSET of one member costs ~104 B more); a second level moves
  both to the ZSET 'l', where they stay until the queue is empty.
]]
local FOLD_MAX_ITEMS = 8
local FOLD_MAX_BYTES = 512

-- Records that the host's lists hold entries at `level`.
local function levels_add(root, host, level)
  level = tostring(level)
  local skey, lk = hkey(root, host, 's'), hkey(root, host, 'l')
  local one = redis.call('HGET', skey, 'lv')
  if one == level then return end
  if not one and redis.call('EXISTS', lk) == 0 then
    redis.call('HSET', skey, 'lv', level)
    return
  end
  if one then
    redis.call('HDEL', skey, 'lv')
    redis.call('ZADD', lk, one, one)
  end
  redis.call('ZADD', lk, level, level)
end

-- The levels of the host's lists, highest first.
local function levels_all(root, host)
  local one = redis.call('HGET', hkey(root, host, 's'), 'lv')
  if one then return { one } end
  return redis.call('ZREVRANGE', hkey(root, host, 'l'), 0, -1)
end

-- The level whose list just emptied.
local function levels_remove(root, host, level)
  level = tostring(level)
  local skey = hkey(root, host, 's')
  if redis.call('HGET', skey, 'lv') == level then
    redis.call('HDEL', skey, 'lv')
  else
    redis.call('ZREM', hkey(root, host, 'l'), level)
  end
end

-- The items of a folded queue, in pop order: { { level, entry }, ... }.
local function fold_parse(packed)
  local items, pos = {}, 1
  while pos <= #packed do
    local level, len, at = string.match(packed, '^(%-?%d+),(%d+),()', pos)
    pos = at + tonumber(len)
    items[#items + 1] = { level, string.sub(packed, at, pos - 1) }
  end
  return items
end

-- Puts an entry where the lists would: after every entry of a higher level and (back) after
-- every entry of its own level, or (front) before them.
local function fold_insert(items, level, entry, front)
  local lv = tonumber(level)
  local at = #items + 1
  for i, item in ipairs(items) do
    local l = tonumber(item[1])
    if l < lv or (front and l == lv) then
      at = i
      break
    end
  end
  table.insert(items, at, { level, entry })
end

-- Appends items (pop order) to the level ZSET and lists: one RPUSH per run of a level.
local function fold_spill(root, host, items)
  local i = 1
  while i <= #items do
    local level, run = items[i][1], {}
    while i <= #items and items[i][1] == level do
      run[#run + 1] = items[i][2]
      i = i + 1
    end
    redis.call('RPUSH', hkey(root, host, 'q:' .. level), unpack(run))
    levels_add(root, host, level)
  end
end

-- Writes the items (pop order, at least one) as the host's folded queue, or, when they
-- outgrow the fold, into the lists and drops Q (`had` = Q exists now).
local function fold_store(root, host, items, had)
  local skey = hkey(root, host, 's')
  if #items <= FOLD_MAX_ITEMS then
    local parts = {}
    for i, item in ipairs(items) do
      parts[i] = item[1] .. ',' .. #item[2] .. ',' .. item[2]
    end
    local packed = table.concat(parts)
    if #packed <= FOLD_MAX_BYTES then
      redis.call('HSET', skey, 'Q', packed)
      return
    end
  end
  fold_spill(root, host, items)
  if had then redis.call('HDEL', skey, 'Q') end
end

-- The host's folded queue (string) when it is folded or empty (nil, false when in lists):
-- where the next push goes.
local function fold_read(root, host)
  local v = redis.call('HMGET', hkey(root, host, 's'), 'Q', 'lv')
  if v[1] then return v[1] end
  if v[2] or redis.call('EXISTS', hkey(root, host, 'l')) == 1 then return nil, false end
  return nil, true
end

-- Push an entry onto a host queue at a priority level; front=true for the front of its level
-- (entries that were already handed out once keep their place), false for the back (FIFO
-- among equals).
local function queue_push(root, host, level, entry, front)
  local packed, empty = fold_read(root, host)
  if packed or empty then
    local items = packed and fold_parse(packed) or {}
    fold_insert(items, level, entry, front)
    fold_store(root, host, items, packed ~= nil)
  else
    local lk = hkey(root, host, 'q:' .. level)
    if front then
      redis.call('LPUSH', lk, entry)
    else
      redis.call('RPUSH', lk, entry)
    end
    levels_add(root, host, level)
  end
  redis.call('HINCRBY', hkey(root, host, 's'), 'q', 1)
end

-- Push n entries at the back of their levels in one go (enqueue-3.lua): `runs` is a list of
-- { level = L, entry1, entry2, ... }, each run FIFO. Lists take one RPUSH per 1,000 entries.
local function queue_push_many(root, host, runs, n)
  local packed, empty = fold_read(root, host)
  if packed or empty then
    local items = packed and fold_parse(packed) or {}
    if #items + n <= FOLD_MAX_ITEMS then
      for _, run in ipairs(runs) do
        for i = 1, #run do fold_insert(items, run.level, run[i], false) end
      end
      fold_store(root, host, items, packed ~= nil)
      redis.call('HINCRBY', hkey(root, host, 's'), 'q', n)
      return
    end
    -- Too many for the fold: what it holds goes first, the batch behind it.
    fold_spill(root, host, items)
    if packed then redis.call('HDEL', hkey(root, host, 's'), 'Q') end
  end
  for _, run in ipairs(runs) do
    local key = hkey(root, host, 'q:' .. run.level)
    for s = 1, #run, 1000 do
      redis.call('RPUSH', key, unpack(run, s, math.min(s + 999, #run)))
    end
    levels_add(root, host, run.level)
  end
  redis.call('HINCRBY', hkey(root, host, 's'), 'q', n)
end

-- Pop the best entry of a host: highest level, oldest first. Returns entry, level or nil.
local function queue_pop(root, host)
  local skey = hkey(root, host, 's')
  local packed = redis.call('HGET', skey, 'Q')
  if packed then
    local level, len, at = string.match(packed, '^(%-?%d+),(%d+),()')
    local after = at + tonumber(len)
    if after > #packed then
      redis.call('HDEL', skey, 'Q')
    else
      redis.call('HSET', skey, 'Q', string.sub(packed, after))
    end
    redis.call('HINCRBY', skey, 'q', -1)
    return string.sub(packed, at, after - 1), level
  end
  local lv = levels_all(root, host)
  if #lv == 0 then
    -- No level left means nothing queued: repair a drifted counter rather than let the
    -- host be scored as due forever.
    redis.call('HSET', skey, 'q', 0)
    return nil
  end
  local level = lv[1]
  local lk = hkey(root, host, 'q:' .. level)
  local entry = redis.call('LPOP', lk)
  if redis.call('LLEN', lk) == 0 then levels_remove(root, host, level) end
  if not entry then return nil end
  redis.call('HINCRBY', skey, 'q', -1)
  return entry, level
end
