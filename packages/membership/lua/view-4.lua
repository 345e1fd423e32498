--[[
  view: read the membership view (no writes). Used to catch up after an epoch message.

  KEYS[1] members   ZSET pod -> session expiry (Redis ms)
  KEYS[2] meta      HASH pod -> "<weight>\t<startedAtMs>\t<instance>\t<info>"
  KEYS[3] epoch     STRING ring epoch
  KEYS[4] config    HASH vnodes, seed

  Returns { epoch, vnodes, seed, nMembers, pod1, weight1, ... } (vnodes/seed '' if unset).
]]
--@include "view"

return append_view({}, KEYS[1], KEYS[2], KEYS[3], KEYS[4])
