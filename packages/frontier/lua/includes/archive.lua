--[[
  Archived domains: a domain of a wide crawl whose URLs are all fetched keeps ~1 KB in its
  own keys (counter hash, hosts set, a seen bucket, host hashes) for as long as the crawl
  lives. An idle small domain is folded into ONE field of a shared archive hash instead and
  unfolded by the next script that adds to it (enqueue).

  The archive hash A (keys.ts archive()) is in the same Cluster slot as the domain's keys
  (its hash tag is picked for that slot), shared with the other domains of the slot; the
  field is the domain, with the crawl's 'c:<crawl>:' before it outside the default crawl.

  Value: "<n>:" then n seen fingerprints of 8 bytes (big-endian), then the domain hash and
  each host's hash as text lines separated by "\n":
    domain line  enq,claimed,ok,bytes,ms,links[;field=value…]
    host line    <host without ".<domain>"> seq,id,ha,dn[;field=value…]
  A positional value is empty when absent; the other fields follow as field=value. f is 0,
  q too unless the domain is packed, and the seen count is n.

  Packed domains: a new small domain (enqueue-3.lua) is folded with its queue, so a wide
  crawl's domains of a few URLs cost one field each until claimed (no domain or host hash,
  no due-index entry: their owner's backlog names them, index-update-3.lua). Its lines then
  carry q=<n>, and after the text comes "\n\n" (never inside the text: no line is empty)
  and each queued host's folded queue (queue.lua's Q) as "<k>,<byteLen>," then Q, k being the
  host's line (1 = first host). The claim that visits such a host unfolds the domain
  (archive_unpack) and claims from it as from any live domain.

  What stays out of the archive (the domain is then not archived): more than
  ARCHIVE_MAX_HOSTS hosts or ARCHIVE_MAX_SEEN fingerprints, anything queued, leased, out,
  scheduled for refetch or dead-lettered, a host whose next request is not yet allowed, a
  host or domain block, a paused domain, other crawls' requests in flight. A default-crawl host's politeness
  fields (host.lua: every crawl reads them) stay in its hash: only the crawl's own fields move.
]]
local ARCHIVE_MAX_HOSTS = 8
local ARCHIVE_MAX_SEEN = 64
local DOMAIN_POS = { 'enq', 'claimed', 'ok', 'bytes', 'ms', 'links' }
local HOST_POS = { 'seq', 'id', 'ha', 'dn' }
-- Fields the archive does not carry: q and f are 0; seen, S, sL and sS are rebuilt from the
-- fingerprints when it is unfolded, h1 from the host lines.
-- q is written only when not 0 (packed), Q as the queue section.
local DOMAIN_SKIP = { f = true, seen = true, sL = true, sS = true, S = true, h1 = true }
local HOST_SKIP = { f = true, Q = true }
-- A default-crawl host's politeness fields, which every crawl reads (host.lua).
local POLITE = { n = true, dl = true, cd = true, bo = true, fc = true, ad = true, ar = true, bu = true, fx = true }
-- Fields unfolded as values (kept when the live hash already has one: it is newer); every
-- other field is a count and is added.
local VALUE_FIELD = { paused = true, bu = true, be = true, bw = true, bn = true, c = true,
  lim = true, dl = true, cd = true, bo = true, fc = true, ad = true, ar = true }

local function archive_field(root)
  local domain, tail = string.match(root, '{d:(.*)}:(.*)$')
  return tail .. domain, domain
end

-- "a,b,c;x=1;y=2" from a hash's fields: positional ones first, then the rest not skipped.
-- nil when a value could not be written back unchanged.
local function pack_fields(h, pos, skip)
  local parts, extra = {}, {}
  local used = {}
  for i, f in ipairs(pos) do
    parts[i] = h[f] or ''
    used[f] = true
  end
  for f, v in pairs(h) do
    if not used[f] and not skip[f] then
      if string.find(f, '[;=,\n ]') or string.find(v, '[;=,\n ]') then return nil end
      extra[#extra + 1] = f .. '=' .. v
    end
  end
  for _, v in ipairs(parts) do
    if string.find(v, '[;=,\n ]') then return nil end
  end
  table.sort(extra)
  local s = table.concat(parts, ',')
  if #extra > 0 then s = s .. ';' .. table.concat(extra, ';') end
  return s
end

local function hash_table(key)
  local flat = redis.call('HGETALL', key)
  local h = {}
  for i = 1, #flat, 2 do h[flat[i]] = flat[i + 1] end
  return h
end

-- Packed values stay within hash-max-listpack-value as our configurations set it
-- (redis-settings.ts), so the archive hash stays a listpack.
local PACK_MAX_BYTES = 1024

-- Folds the domain into the archive hash when it is idle and small (see the header), or,
-- `packing` (enqueue-3.lua, a new domain), small with its queue folded. Returns true when it
-- did.
local function archive_try(root, dkey, akey, now, packing)
  if not akey or akey == '' then return false end
  local field, domain = archive_field(root)
  -- Nothing live to fold, or folded already (what a stray write left since merges back when
  -- the domain is unfolded).
  if redis.call('EXISTS', dkey) == 0 or redis.call('HEXISTS', akey, field) == 1 then return false end
  local own = polite_root(root) == root
  local d = hash_table(dkey)
  -- A paused domain stays live: resume (pause-3.lua) clears the flag in its live hash only.
  if ((tonumber(d.q) or 0) ~= 0 and not packing) or (tonumber(d.f) or 0) ~= 0 or d.bu or d.paused then
    return false
  end
  if d.q == '0' then d.q = nil end
  local nseen = tonumber(d.seen) or 0
  if nseen > ARCHIVE_MAX_SEEN then return false end
  local hosts_key = root .. 'H'
  if redis.call('SCARD', hosts_key) >= ARCHIVE_MAX_HOSTS then return false end
  if redis.call('EXISTS', root .. 'x') == 1 then return false end
  local hosts = hosts_of(root, dkey)
  local lines, keep, queues = {}, {}, {}
  for k, host in ipairs(hosts) do
    if redis.call('EXISTS', hkey(root, host, 'l'), hkey(root, host, 'L'), hkey(root, host, 'D'),
        hkey(root, host, 'U'), hkey(root, host, 'r')) > 0 then return false end
    local h = hash_table(hkey(root, host, 's'))
    if (tonumber(h.f) or 0) ~= 0 or h.lv then return false end
    -- Queued: folded (Q) and packing, or not at all.
    if (tonumber(h.q) or 0) ~= 0 or h.Q then
      if not (packing and h.Q) then return false end
      queues[#queues + 1] = k .. ',' .. #h.Q .. ',' .. h.Q
    end
    if h.q == '0' then h.q = nil end
    local residual = {}
    if own then
      if (tonumber(h.fx) or 0) > 0 or (tonumber(h.n) or 0) > now then return false end
      h.n, h.fx = nil, nil
      for f, v in pairs(h) do
        if POLITE[f] then
          residual[#residual + 1] = f
          h[f] = nil
        end
      end
    end
    local packed = pack_fields(h, HOST_POS, HOST_SKIP)
    if not packed then return false end
    local rel = host
    if host == domain then
      rel = ''
    elseif string.sub(host, -#domain - 1) == '.' .. domain then
      rel = string.sub(host, 1, -#domain - 2)
    end
    lines[#lines + 1] = rel .. ' ' .. packed
    keep[host] = residual
  end
  local dpacked = pack_fields(d, DOMAIN_POS, DOMAIN_SKIP)
  if not dpacked then return false end
  -- The fingerprints: inline (seen.lua's field 'S', already packed) or bucket by bucket
  -- (2^sL + sS buckets).
  local fps = { d.S or '' }
  local buckets = 2 ^ (tonumber(d.sL) or 0) + (tonumber(d.sS) or 0)
  for b = 0, buckets - 1 do
    for _, fp in ipairs(redis.call('SMEMBERS', root .. 's:' .. b)) do fps[#fps + 1] = fp_pack(fp) end
  end
  local packed_fps = table.concat(fps)
  local value = (#packed_fps / 8) .. ':' .. packed_fps .. dpacked
  if #lines > 0 then value = value .. '\n' .. table.concat(lines, '\n') end
  if #queues > 0 then
    value = value .. '\n\n' .. table.concat(queues)
    if #value > PACK_MAX_BYTES then return false end
  end
  for b = 0, buckets - 1 do redis.call('UNLINK', root .. 's:' .. b) end
  for _, host in ipairs(hosts) do
    local skey = hkey(root, host, 's')
    if #keep[host] == 0 then
      redis.call('UNLINK', skey)
    else
      -- Only the shared politeness fields stay.
      local drop = {}
      for f in pairs(hash_table(skey)) do
        if not POLITE[f] or f == 'n' or f == 'fx' then drop[#drop + 1] = f end
      end
      if #drop > 0 then redis.call('HDEL', skey, unpack(drop)) end
    end
  end
  redis.call('UNLINK', hosts_key, dkey)
  redis.call('HSET', akey, field, value)
  return true
end

local function unfold_fields(key, text, pos)
  local body, extra = string.match(text, '^([^;]*);?(.*)$')
  local i = 0
  for v in string.gmatch(body .. ',', '([^,]*),') do
    i = i + 1
    if v ~= '' and pos[i] then redis.call('HINCRBY', key, pos[i], v) end
  end
  for f, v in string.gmatch(extra, '([^;=]+)=([^;]*)') do
    if VALUE_FIELD[f] or not string.match(v, '^%-?%d+$') then
      redis.call('HSETNX', key, f, v)
    else
      redis.call('HINCRBY', key, f, v)
    end
  end
end

-- The domain's archive field (archive_try's value), or nil when it is not archived.
local function archive_value(root, akey)
  if not akey or akey == '' then return nil end
  return redis.call('HGET', akey, (archive_field(root))) or nil
end

-- Whether the archived domain (its archive field `value`) saw every one of `fps` (decimal
-- strings): a batch of links it already has is answered without unfolding the domain.
local function archive_saw_all(value, fps)
  local n, pos = string.match(value, '^(%d+):()')
  local packed = string.sub(value, pos, pos + 8 * tonumber(n) - 1)
  for _, fp in ipairs(fps) do
    if not inline_find(packed, fp_pack(fp)) then return false end
  end
  return true
end

-- Unfolds an archived domain back into its keys (merging with anything written since: counts
-- add up, values already there win). Returns the archived fetch and error counts (ok, err +
-- dead) for the domain indexes. `value` is its archive field (archive_value).
-- load, inline_max: seen.lua's seen_state (the enqueue's).
local function archive_revive(root, dkey, akey, value, load, inline_max)
  local field, domain = archive_field(root)
  redis.call('HDEL', akey, field)
  local n, pos = string.match(value, '^(%d+):()')
  n = tonumber(n)
  local fps = {}
  for k = 0, n - 1 do fps[#fps + 1] = fp_unpack(value, pos + 8 * k) end
  local text = string.sub(value, pos + 8 * n)
  local queues = ''
  local cut = string.find(text, '\n\n', 1, true)
  if cut then
    queues = string.sub(text, cut + 2)
    text = string.sub(text, 1, cut - 1)
  end
  local first, hosts = true, {}
  for line in string.gmatch(text .. '\n', '([^\n]*)\n') do
    if first then
      unfold_fields(dkey, line, DOMAIN_POS)
      first = false
    else
      local rel, fields = string.match(line, '^([^ ]*) (.*)$')
      local host = domain
      if rel ~= '' then host = rel .. '.' .. domain end
      host_add(root, dkey, host)
      unfold_fields(hkey(root, host, 's'), fields, HOST_POS)
      hosts[#hosts + 1] = host
    end
  end
  -- A packed domain's queues: nothing was queued since (a write to it unfolds it first).
  local at = 1
  while at <= #queues do
    local k, len, from = string.match(queues, '^(%d+),(%d+),()', at)
    at = from + tonumber(len)
    redis.call('HSET', hkey(root, hosts[tonumber(k)], 's'), 'Q', string.sub(queues, from, at - 1))
  end
  local st = seen_state(dkey, load, inline_max)
  for _, fp in ipairs(fps) do seen_add(root, dkey, fp, st) end
  seen_save(dkey, st)
  local c = redis.call('HMGET', dkey, 'ok', 'err', 'dead', 'q')
  return { tonumber(c[1]) or 0, (tonumber(c[2]) or 0) + (tonumber(c[3]) or 0), tonumber(c[4]) or 0 }
end

-- Unfolds the domain when it is packed (has URLs queued in its archive field) and has no
-- live counters ('enq') of its own: a script about to work on its queues calls this first.
-- Returns archive_revive's counts, or nil when nothing was unfolded.
local function archive_unpack(root, dkey, akey, load, inline_max)
  if not akey or akey == '' or redis.call('HEXISTS', dkey, 'enq') == 1 then return nil end
  local value = archive_value(root, akey)
  if not value then return nil end
  -- The queues' mark is looked for after the fingerprints (binary: they may hold it).
  local n, pos = string.match(value, '^(%d+):()')
  if not string.find(value, '\n\n', pos + 8 * tonumber(n), true) then return nil end
  return archive_revive(root, dkey, akey, value, load, inline_max)
end
