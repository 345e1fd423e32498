--[[
  The membership view: epoch, ring config and the member list with weights. The list
  only changes together with the epoch, so every reader of one epoch sees one list.
  meta field of a pod: "<weight>\t<startedAtMs>\t<instance>\t<info>".
]]
local function member_weight(meta_value)
  if not meta_value then return '1' end
  local tab = string.find(meta_value, '\t', 1, true)
  if not tab then return meta_value end
  return string.sub(meta_value, 1, tab - 1)
end

-- Appends "epoch, vnodes, seed, n, pod1, weight1, ..." to reply.
local function append_view(reply, members_key, meta_key, epoch_key, config_key)
  local epoch = tonumber(redis.call('GET', epoch_key) or '0')
  local cfg = redis.call('HMGET', config_key, 'vnodes', 'seed')
  local pods = redis.call('ZRANGE', members_key, 0, -1)
  reply[#reply + 1] = epoch
  reply[#reply + 1] = cfg[1] or ''
  reply[#reply + 1] = cfg[2] or ''
  reply[#reply + 1] = #pods
  for _, pod in ipairs(pods) do
    reply[#reply + 1] = pod
    reply[#reply + 1] = member_weight(redis.call('HGET', meta_key, pod))
  end
  return reply
end
