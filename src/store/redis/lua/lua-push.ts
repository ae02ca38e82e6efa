/**
 * The scripts of push configs and their delivery cursors (ADR 0045, ADR 0056), as the memory store decides them
 * (memory-push.ts): every outcome is conditional on the claim's holder and on the event being the cursor's next,
 * and a repeat of an outcome that landed is answered 1 and changes nothing.
 */

/** putPushConfig. ARGV: task id, config id, config JSON. Returns 0 when the task does not exist. */
export const LUA_PUT_CONFIG = `
if redis.call('EXISTS', K('t', ARGV[1])) == 0 then return 0 end
putConfig(ARGV[1], ARGV[2], ARGV[3])
return 1
`;

/** deletePushConfig. ARGV: task id, config id. */
export const LUA_DELETE_CONFIG = `
local id, cfg = ARGV[1], ARGV[2]
local n = redis.call('HDEL', K('pc', id), cfg)
local f = {}
for i, name in ipairs(CURSOR) do f[i] = cfg .. Z .. name end
redis.call('HDEL', K('pd', id), unpack(f))
redis.call('ZREM', IX_PUSH, id .. Z .. cfg)
return n
`;

/** listPushConfigs (read-only). ARGV: task id. The configs' JSON in the order they were first stored. */
export const LUA_LIST_CONFIGS = `
local id = ARGV[1]
local pc = K('pc', id)
local ids = redis.call('HKEYS', pc)
local pd = K('pd', id)
local pos = {}
for _, cfg in ipairs(ids) do pos[cfg] = tonumber(redis.call('HGET', pd, cfg .. Z .. 'pos')) or 0 end
table.sort(ids, function(a, b) return pos[a] < pos[b] end)
local out = {}
for i, cfg in ipairs(ids) do out[i] = redis.call('HGET', pc, cfg) end
return out
`;

/** getPushDelivery (read-only). ARGV: task id, config id. Returns {task seq, cursor...} or nil. */
export const LUA_PUSH_STATE = `
local q = redis.call('HGET', K('t', ARGV[1]), 'q')
local c = cursorOf(K('pd', ARGV[1]), ARGV[2])
if not q or not c then return false end
return { tonumber(q), cursorReply(c) }
`;

/**
 * claimPushDeliveries on one scope. ARGV: holder, claim until, now, limit, then the members to claim (task id
 * \\0 config id) when a store-wide pick chose them; without any, the scope's oldest due. Each claimed cursor is
 * rescored to its claim's end, so it is not due again before the claim lapses.
 */
export const LUA_CLAIM_PUSH = `
local holder, untilAt, now, limit = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local out = {}
local function try(m)
  local cut = string.find(m, Z, 1, true)
  local id, cfg = string.sub(m, 1, cut - 1), string.sub(m, cut + 1)
  local q = tonumber(redis.call('HGET', K('t', id), 'q'))
  local pd = K('pd', id)
  local c = q and cursorOf(pd, cfg)
  if not c then redis.call('ZREM', IX_PUSH, m); return end
  if q <= c.ds or c.na > now or (c.cu and c.cu > now) then repush(id, cfg, c, q); return end
  c.ch = holder
  c.cu = untilAt
  saveCursor(pd, cfg, c)
  repush(id, cfg, c, q)
  out[#out + 1] = { id, cfg, redis.call('HGET', K('pc', id), cfg), q, cursorReply(c) }
end
if #ARGV > 4 then
  for i = 5, #ARGV do try(ARGV[i]) end
else
  for round = 1, 8 do
    local due = redis.call('ZRANGEBYSCORE', IX_PUSH, '-inf', now, 'LIMIT', 0, limit - #out)
    if #due == 0 then break end
    for _, m in ipairs(due) do try(m) end
    if #out >= limit then break end
  end
end
return out
`;

/**
 * recordPushDelivery. ARGV: task id, config id, holder, kind, seq, now, claim until, error, retry at, through
 * ('e' the event, 'b' the backlog), reason.
 */
export const LUA_RECORD_PUSH = `
local id, cfg, holder, kind = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local seq, now, untilAt = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local q = tonumber(redis.call('HGET', K('t', id), 'q'))
local pd = K('pd', id)
local c = q and cursorOf(pd, cfg)
if not c or c.ch ~= holder then return 0 end
if not c.cu then
  -- Released already: only a repeat of the outcome that released it is recognised (its answer was lost).
  if kind == 'released' then return 1 end
  if kind == 'failed' then
    if c.ds == seq - 1 and c.at > 0 and c.na == tonumber(ARGV[9]) then return 1 end
    return 0
  end
  if kind == 'given-up' then
    if c.gf == seq and c.ds >= seq then return 1 end
    return 0
  end
  return 0
end
local function done()
  saveCursor(pd, cfg, c)
  repush(id, cfg, c, q)
  return 1
end
if kind == 'released' then c.cu = false; return done() end
if kind == 'delivered' and seq == c.ds then c.cu = untilAt; return done() end
if seq ~= c.ds + 1 then return 0 end
if kind == 'sending' then
  c.cu = untilAt
elseif kind == 'delivered' then
  c.ds = seq; c.at = 0; c.fs = false; c.na = now; c.cu = untilAt
elseif kind == 'failed' then
  c.at = c.at + 1; c.fs = c.fs or now; c.le = ARGV[8]; c.na = tonumber(ARGV[9]); c.cu = false
elseif kind == 'given-up' then
  local through = seq
  if ARGV[10] == 'b' then through = math.max(seq, q) end
  c.gu = c.gu + through - c.ds
  c.gf = seq; c.gt = through; c.ga = now; c.gr = ARGV[11]
  c.ds = through; c.at = 0; c.fs = false; c.le = ARGV[8]; c.na = now; c.cu = false
else
  return 0
end
return done()
`;
