--[[
  The seen-set of a domain: 64-bit fingerprints (decimal strings in [0, 2^63)) spread over
  buckets R .. 's:' .. b, each a SET small enough to stay an intset (8 bytes per entry).
  Buckets grow by linear hashing: level sL and split pointer sS in the domain hash; bucket
  count = 2^sL + sS; when the domain holds more than SEEN_LOAD entries per bucket the
  bucket at the split pointer is split in two. The bucket hash is the top 20 bits of the
  fingerprint, computed from the double value: deterministic, so lookups and splits agree.
]]
local SEEN_LOAD = 200
local SEEN_DIV = 8796093022208 -- 2^43: fingerprint / 2^43 < 2^20

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
  local b = seen_bucket(seen_hash(fp), st.L, st.S)
  if redis.call('SADD', root .. 's:' .. b, fp) == 0 then return false end
  st.n = st.n + 1
  if st.n > SEEN_LOAD * (2 ^ st.L + st.S) and st.L < 20 then
    local from = root .. 's:' .. st.S
    local to = root .. 's:' .. (st.S + 2 ^ st.L)
    local mod = 2 ^ (st.L + 1)
    for _, m in ipairs(redis.call('SMEMBERS', from)) do
      if seen_hash(m) % mod ~= st.S then
        redis.call('SMOVE', from, to, m)
      end
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
  local b = seen_bucket(seen_hash(fp), st.L, st.S)
  if redis.call('SREM', root .. 's:' .. b, fp) == 1 then st.n = st.n - 1 end
end

local function seen_state(domain_key)
  local v = redis.call('HMGET', domain_key, 'sL', 'sS', 'seen')
  return { L = tonumber(v[1]) or 0, S = tonumber(v[2]) or 0, n = tonumber(v[3]) or 0, n0 = tonumber(v[3]) or 0 }
end

local function seen_save(domain_key, st)
  if st.dirty then
    redis.call('HSET', domain_key, 'sL', st.L, 'sS', st.S)
  end
  if st.n ~= st.n0 then
    redis.call('HINCRBY', domain_key, 'seen', st.n - st.n0)
  end
end
