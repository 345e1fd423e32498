--[[
  The seen-set of a domain: 64-bit fingerprints (decimal strings in [0, 2^63)) spread over
  buckets R .. 's:' .. b, each a SET small enough to stay an intset (8 bytes per entry).
  Buckets grow by linear hashing: level sL and split pointer sS in the domain hash; bucket
  count = 2^sL + sS; when the domain holds more than `load` entries per bucket (the caller's,
  from the server's set-max-intset-entries: the fullest bucket holds ~2× the mean and must
  stay an intset) the bucket at the split pointer is split in two. Lookups depend on sL and
  sS alone, so callers with different loads share a seen-set safely. The bucket hash is the
  top 20 bits of the fingerprint, computed from the double value: deterministic, so lookups
  and splits agree.

  A small seen-set (most domains of a wide crawl) has no bucket: its fingerprints, 8 bytes
  each (big-endian), are the domain hash's field 'S' (at most `inline_max` of them, the
  caller's, from the server's hash-max-listpack-value ÷ 8, so the hash stays a listpack; an
  intset bucket would cost its key and size-class rounding on top, ~90 B per domain). The
  next one moves them all to bucket 0. A domain with fingerprints and no 'S' (or sL/sS set)
  is in buckets.
]]
local SEEN_DIV = 8796093022208 -- 2^43: fingerprint / 2^43 < 2^20
-- Members moved per SREM/SADD when a bucket splits (Lua's unpack takes ~8,000 values at most).
local SEEN_MOVE_CHUNK = 1000
local TWO32 = 4294967296

-- A fingerprint (decimal string in [0, 2^63)) as 8 bytes; exact in doubles: lo < 2^32 and
-- lo * 10 + 9 < 2^36.
local function fp_pack(s)
  local hi, lo = 0, 0
  for i = 1, #s do
    lo = lo * 10 + (string.byte(s, i) - 48)
    local carry = math.floor(lo / TWO32)
    lo = lo - carry * TWO32
    hi = hi * 10 + carry
  end
  return struct.pack('>I4I4', hi, lo)
end

-- The decimal string of the 8-byte fingerprint at pos of s.
local function fp_unpack(s, pos)
  local hi, lo = struct.unpack('>I4I4', s, pos)
  if hi == 0 then return string.format('%d', lo) end
  local digits = {}
  while hi > 0 or lo > 0 do
    local r = hi % 10
    hi = (hi - r) / 10
    local cur = r * TWO32 + lo
    local d = cur % 10
    lo = (cur - d) / 10
    digits[#digits + 1] = d
  end
  local out = {}
  for i = #digits, 1, -1 do out[#out + 1] = digits[i] end
  return table.concat(out)
end

-- Position (1-based, a multiple of 8 plus 1) of the packed fingerprint in the inline set, or nil.
local function inline_find(inline, packed)
  local at = 1
  while true do
    local i = string.find(inline, packed, at, true)
    if not i then return nil end
    if (i - 1) % 8 == 0 then return i end
    at = i + 1
  end
end

local function seen_hash(fp)
  return math.floor(tonumber(fp) / SEEN_DIV)
end

local function seen_bucket(g, L, S)
  local b = g % (2 ^ L)
  if b < S then b = g % (2 ^ (L + 1)) end
  return b
end

-- Returns true when fp was new (and records it), false when already seen.
local function seen_add(root, domain_key, fp, st)
  if st.inline then
    local packed = fp_pack(fp)
    if inline_find(st.inline, packed) then return false end
    st.n = st.n + 1
    st.inline_dirty = true
    if #st.inline < 8 * st.inline_max then
      st.inline = st.inline .. packed
      return true
    end
    -- The set outgrows the field: every fingerprint to bucket 0 (level 0, one bucket).
    local all = { fp }
    for pos = 1, #st.inline, 8 do all[#all + 1] = fp_unpack(st.inline, pos) end
    redis.call('SADD', root .. 's:0', unpack(all))
    st.inline = false
    return true
  end
  local b = seen_bucket(seen_hash(fp), st.L, st.S)
  if redis.call('SADD', root .. 's:' .. b, fp) == 0 then return false end
  st.n = st.n + 1
  if st.n > st.load * (2 ^ st.L + st.S) and st.L < 20 then
    local from = root .. 's:' .. st.S
    local to = root .. 's:' .. (st.S + 2 ^ st.L)
    local mod = 2 ^ (st.L + 1)
    local moving = {}
    for _, m in ipairs(redis.call('SMEMBERS', from)) do
      if seen_hash(m) % mod ~= st.S then moving[#moving + 1] = m end
    end
    for i = 1, #moving, SEEN_MOVE_CHUNK do
      local last = math.min(#moving, i + SEEN_MOVE_CHUNK - 1)
      redis.call('SREM', from, unpack(moving, i, last))
      redis.call('SADD', to, unpack(moving, i, last))
    end
    st.S = st.S + 1
    if st.S == 2 ^ st.L then
      st.L = st.L + 1
      st.S = 0
    end
    st.dirty = true
  end
  return true
end

-- Forgets a fingerprint just added (used when the URL is refused after all).
local function seen_remove(root, fp, st)
  if st.inline then
    local i = inline_find(st.inline, fp_pack(fp))
    if i then
      st.inline = string.sub(st.inline, 1, i - 1) .. string.sub(st.inline, i + 8)
      st.inline_dirty = true
      st.n = st.n - 1
    end
    return
  end
  local b = seen_bucket(seen_hash(fp), st.L, st.S)
  if redis.call('SREM', root .. 's:' .. b, fp) == 1 then st.n = st.n - 1 end
end

-- load: mean entries per bucket before a split; inline_max: most fingerprints in 'S'.
local function seen_state(domain_key, load, inline_max)
  local v = redis.call('HMGET', domain_key, 'sL', 'sS', 'seen', 'S')
  local n = tonumber(v[3]) or 0
  local inline = v[4]
  -- Buckets once the domain has any fingerprint without the field (or has split).
  if not inline and n == 0 and not v[1] then inline = '' end
  return { L = tonumber(v[1]) or 0, S = tonumber(v[2]) or 0, n = n, n0 = n, inline = inline or false,
    load = load, inline_max = inline_max }
end

local function seen_save(domain_key, st)
  if st.inline_dirty then
    if st.inline and st.inline ~= '' then
      redis.call('HSET', domain_key, 'S', st.inline)
    else
      redis.call('HDEL', domain_key, 'S')
    end
  end
  if st.dirty then
    redis.call('HSET', domain_key, 'sL', st.L, 'sS', st.S)
  end
  if st.n ~= st.n0 then
    redis.call('HINCRBY', domain_key, 'seen', st.n - st.n0)
  end
end
