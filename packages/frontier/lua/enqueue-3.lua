#!lua
--[[
  enqueue: add canonical URLs of ONE domain to its host queues, exactly once per crawl.

  KEYS[1] domain hash  R..'d'  (counters, paused flag, seen-bucket level sL / split sS)
  KEYS[2] hosts set    R..'H'  (the domain's hosts after its first, which the domain hash's
                                'h1' holds: host.lua host_add)
  KEYS[3] key root     R       (prefix of the domain's dynamic keys: seen buckets
                                R..'s:<b>' and host keys R..'h:<host>:…'; same hash tag,
                                hence same slot, as KEYS[1])
  ARGV[1] cap          most URLs queued in the domain at once; 0 = no cap
  ARGV[2] default concurrency per host (used when a host has no own `c`)
  ARGV[3] accept cap   most URLs ever accepted in the domain (its `enq` counter) over the
                       crawl; 0 = no cap. Checked here, so concurrent enqueuers of any
                       number of pods can never overshoot it.
  ARGV[4] host accept cap  most URLs ever accepted per host (its 'ha' counter); 0 = no
                       cap. Like the accept cap, exact across enqueuers.
  ARGV[5] archive hash of the domain (keys.ts archive(): same Cluster slot as KEYS[1]), or '':
          an archived domain is unfolded first (archive.lua)
  ARGV[6] seen bucket load: mean fingerprints per seen bucket before one splits (seen.lua)
  ARGV[7] most fingerprints kept inline in the domain hash (seen.lua)
  ARGV[8] '1' to pack a new small domain with its queue into the archive (archive.lua), '0'
          not to (needs ARGV[5])
  ARGV[9..] groups of 4: host, fingerprint (decimal, 0..2^63-1), priority level
            (integer), entry ("<depth>,<attempt>,<metaLen>,<meta><url>")

  Returns { statuses, queuedInDomain, revived, host1, seq1, score1, host2, ... }
    statuses: one character per URL in order: 'q' queued, 'd' duplicate (already seen,
    including earlier in this batch), 'c' over the domain's queue cap (not marked seen, so
    it can be enqueued again later), 'a' over the accept cap, 'h' over the host accept cap
    (neither marked seen); revived: '' or, when the domain was unfolded from the archive and
    stays unfolded, "<ok>,<errors>,<queued>" (its fetched, failed + dead and packed queued
    counts, for the domain indexes it had left), or 'packed' (a new domain now packed) or 'repacked' (an archived one
    packed again); then for every host that got a URL its new scheduling seq and due-index
    score ('park' | ms | 'inf' | 'packed': the owner's backlog is to name it).
  Side effects: seen buckets (may split one), host lists/levels/state, domain counters
  q, seen, enq, dup, cap (every cap); host ha.
  The shebang makes Redis refuse the whole script while it is out of memory (a script
  without one could stop halfway, at its first write that needs memory).
]]
--@include "time"
--@include "host"
--@include "queue"
--@include "seen"
--@include "archive"

local dkey, root = KEYS[1], KEYS[3]
local cap = tonumber(ARGV[1])
local default_conc = tonumber(ARGV[2])
local accept_cap = tonumber(ARGV[3])
local host_cap = tonumber(ARGV[4])
local seen_load = tonumber(ARGV[6])
local seen_inline_max = tonumber(ARGV[7])
-- Accepted so far per host (read once per host in this batch), for the host accept cap.
local host_accepted = {}
local dv = redis.call('HMGET', dkey, 'q', 'enq', 'h1')
-- A domain that has accepted URLs ('enq': only enqueue writes it, after unfolding) is live,
-- so the archive is read only for one that has not. An archived domain: a batch of links it
-- saw already is answered from its archive field (its own 'dup' count is not kept then; the
-- global one is); any other batch unfolds it.
local revived = nil
-- Not live before this batch: a new or archived domain, which may end up packed.
local fresh = not dv[2]
local archived = fresh and archive_value(root, ARGV[5])
if archived then
  local batch_fps = {}
  for i = 10, #ARGV, 4 do batch_fps[#batch_fps + 1] = ARGV[i] end
  if #batch_fps > 0 and archive_saw_all(archived, batch_fps) then
    return { string.rep('d', #batch_fps), 0, '' }
  end
  revived = archive_revive(root, dkey, ARGV[5], archived, seen_load, seen_inline_max)
  dv = redis.call('HMGET', dkey, 'q', 'enq', 'h1')
end
local queued = tonumber(dv[1] or '0')
local accepted = tonumber(dv[2] or '0')
local st = seen_state(dkey, seen_load, seen_inline_max)
local out = {}
-- Accepted entries are buffered per host and level and pushed in bulk at the end (one
-- RPUSH per list instead of one per URL); order within a list is kept.
local lists, list_order = {}, {}
local per_host, host_order = {}, {}
local nq, nd, nc = 0, 0, 0

for i = 9, #ARGV, 4 do
  local host, fp, level, entry = ARGV[i], ARGV[i + 1], ARGV[i + 2], ARGV[i + 3]
  if not seen_add(root, dkey, fp, st) then
    out[#out + 1] = 'd'
    nd = nd + 1
  elseif accept_cap > 0 and accepted >= accept_cap then
    -- Over the accept cap: the domain takes no more URLs in this crawl. Not marked seen, so
    -- the seen-set does not grow with links the crawl will never fetch.
    seen_remove(root, fp, st)
    out[#out + 1] = 'a'
    nc = nc + 1
  elseif host_cap > 0 and (host_accepted[host] or tonumber(redis.call('HGET', hkey(root, host, 's'), 'ha') or '0')) >= host_cap then
    host_accepted[host] = host_cap
    seen_remove(root, fp, st)
    out[#out + 1] = 'h'
    nc = nc + 1
  elseif cap > 0 and queued >= cap then
    -- Over the cap: undo the seen mark so the URL can be enqueued once there is room.
    seen_remove(root, fp, st)
    out[#out + 1] = 'c'
    nc = nc + 1
  else
    local lk = host .. '\n' .. level
    local buf = lists[lk]
    if not buf then
      buf = { host = host, level = level }
      lists[lk] = buf
      list_order[#list_order + 1] = lk
    end
    buf[#buf + 1] = entry
    if not per_host[host] then
      per_host[host] = 0
      host_order[#host_order + 1] = host
    end
    per_host[host] = per_host[host] + 1
    if host_cap > 0 then
      host_accepted[host] = (host_accepted[host] or tonumber(redis.call('HGET', hkey(root, host, 's'), 'ha') or '0')) + 1
    end
    queued = queued + 1
    accepted = accepted + 1
    nq = nq + 1
    out[#out + 1] = 'q'
  end
end

-- Each host's runs (one per level) go in at once: into its folded queue while it stays
-- small, else into its lists (queue.lua queue_push_many).
local host_runs = {}
for _, lk in ipairs(list_order) do
  local buf = lists[lk]
  local runs = host_runs[buf.host] or {}
  host_runs[buf.host] = runs
  runs[#runs + 1] = buf
end
for _, host in ipairs(host_order) do
  queue_push_many(root, host, host_runs[host], per_host[host])
  redis.call('HINCRBY', hkey(root, host, 's'), 'ha', per_host[host])
end

seen_save(dkey, st)
if nq > 0 then
  redis.call('HINCRBY', dkey, 'q', nq)
  redis.call('HINCRBY', dkey, 'enq', nq)
end
if nd > 0 then redis.call('HINCRBY', dkey, 'dup', nd) end
if nc > 0 then redis.call('HINCRBY', dkey, 'cap', nc) end

-- Unfolded for URLs it then refused (caps): folded again, nothing changed for the indexes.
if revived and nq == 0 and archive_try(root, dkey, ARGV[5], now_ms(), ARGV[8] == '1') then revived = nil end
local reply = { table.concat(out), queued,
  revived and (revived[1] .. ',' .. revived[2] .. ',' .. revived[3]) or '' }
-- Only hosts that got a URL are re-scored; a batch of duplicates does not read the flag.
local paused = #host_order > 0 and is_paused(dkey)
for _, host in ipairs(host_order) do
  -- The domain's first host is in its hash already (host.lua host_add): nothing to add.
  if host ~= dv[3] then host_add(root, dkey, host) end
  local seq, score = host_schedule(root, host, paused, default_conc)
  reply[#reply + 1] = host
  reply[#reply + 1] = seq
  reply[#reply + 1] = score
end
-- A new small domain is packed (archive.lua): its hosts go to the owner's backlog instead of
-- its due index, with the seqs just written (they move into the packed field).
if fresh and nq > 0 and ARGV[8] == '1' and archive_try(root, dkey, ARGV[5], now_ms(), true) then
  reply[3] = revived and 'repacked' or 'packed'
  for j = 6, #reply, 3 do reply[j] = 'packed' end
end
return reply
