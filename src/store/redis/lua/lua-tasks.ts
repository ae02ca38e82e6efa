/**
 * The scripts of task creation, key claims, compare-and-set commits, releases and listing (ADR 0116). Each is
 * one atomic step on the scope's slot; see lua-prelude.ts for the fields and helpers they share.
 */

/**
 * createTask. ARGV: now, id, task JSON, state, status ts, has context ('1'), context, finished ('1'), lease owner
 * ('' none), lease expiry, first message id ('' none), keyed ('1'), key, message id, digest, key expiry, key cap
 * (-1 none), replace tombstone ('1'), tombstone TTL, expiry budget, config count, then (config id, JSON) pairs.
 */
export const LUA_CREATE = `
local now = tonumber(ARGV[1])
local id = ARGV[2]
local t = K('t', id)
local keyed = ARGV[12] == '1'
if redis.call('EXISTS', t) == 1 then
  -- A retry of this very creation whose answer was lost (ADR 0052): same first message, and its key with it.
  local same = ARGV[11] ~= '' and redis.call('HGET', t, 'fm') == ARGV[11]
  if same and keyed then
    local v = redis.call('HMGET', K('k', ARGV[13]), 't', 'tb')
    same = v[1] == id and v[2] ~= '1'
  end
  if same then return { 'landed', taskFields(t) } end
  return { 'exists' }
end
if keyed then
  local refused = refuseClaim(ARGV[13], now, tonumber(ARGV[17]), ARGV[18] == '1', ARGV[19], tonumber(ARGV[20]))
  if refused then return refused end
end
local fields = { 'j', ARGV[3], 'k', 'task', 'f', 1, 'q', 0, 'c', now, 'u', now, 'st', ARGV[4], 'ts', ARGV[5],
  'fin', ARGV[8] }
if ARGV[6] == '1' then fields[#fields + 1] = 'cx'; fields[#fields + 1] = ARGV[7] end
if ARGV[9] ~= '' then
  fields[#fields + 1] = 'lo'; fields[#fields + 1] = ARGV[9]
  fields[#fields + 1] = 'le'; fields[#fields + 1] = ARGV[10]
end
if ARGV[11] ~= '' then fields[#fields + 1] = 'fm'; fields[#fields + 1] = ARGV[11] end
redis.call('HSET', t, unpack(fields))
index(id, { k = 'task', st = ARGV[4], ts = ARGV[5], cx = ARGV[6] == '1' and ARGV[7], fin = ARGV[8],
  le = ARGV[9] ~= '' and ARGV[10], u = now })
local n = tonumber(ARGV[21])
for i = 0, n - 1 do putConfig(id, ARGV[22 + 2 * i], ARGV[23 + 2 * i]) end
if keyed then putKey(ARGV[13], ARGV[14], ARGV[15], id, now, ARGV[16]) end
return { 'created' }
`;

/** claimKey. ARGV: now, task id, key, message id, digest, key expiry, key cap, replace, tombstone TTL, budget. */
export const LUA_CLAIM_KEY = `
local now = tonumber(ARGV[1])
local refused = refuseClaim(ARGV[3], now, tonumber(ARGV[7]), ARGV[8] == '1', ARGV[9], tonumber(ARGV[10]))
if refused then return refused end
putKey(ARGV[3], ARGV[4], ARGV[5], ARGV[2], now, ARGV[6])
return { 'claimed' }
`;

/**
 * commit: the compare-and-set. ARGV: now, id, task JSON, reply JSON ('' none), next fence ('' keep), state,
 * status ts, has context, context, terminal state ('1'), expected fence, expected seq ('' any), lease ('k' keep,
 * 's' set, 'c' clear), lease owner, lease expiry, write id ('' none), then the events' JSON in order.
 */
export const LUA_COMMIT = `
local now = tonumber(ARGV[1])
local id = ARGV[2]
local t = K('t', id)
local v = redis.call('HMGET', t, 'k', 'f', 'q', 'fin', 'w', 'st', 'ts', 'cx', 'le', 'u', 'c', 'lo', 'pn')
if not v[1] then return { 'gone' } end
if tonumber(v[2]) ~= tonumber(ARGV[11]) or (ARGV[12] ~= '' and tonumber(v[3]) ~= tonumber(ARGV[12]))
  or v[4] == '1' or (ARGV[16] ~= '' and v[5] == ARGV[16]) then
  return { 'refused', v[5], taskFields(t) }
end
local n = #ARGV - 16
local seq = tonumber(v[3]) + n
if n > 0 then
  local ev = K('e', id)
  for i = 17, #ARGV, 500 do redis.call('RPUSH', ev, unpack(ARGV, i, math.min(i + 499, #ARGV))) end
end
local kind = v[1]
if ARGV[4] ~= '' then kind = 'message' end
local fin = '0'
if ARGV[10] == '1' or kind == 'message' then fin = '1' end
local fence = v[2]
if ARGV[5] ~= '' then fence = ARGV[5] end
local fields = { 'j', ARGV[3], 'k', kind, 'f', fence, 'q', seq, 'st', ARGV[6], 'ts', ARGV[7], 'fin', fin, 'u', now }
local gone = {}
if ARGV[4] ~= '' then fields[#fields + 1] = 'r'; fields[#fields + 1] = ARGV[4] end
-- Fields to drop are dropped only when the task has them (HMGET read them above): no HDEL that removes nothing.
local cx = false
if ARGV[8] == '1' then cx = ARGV[9]; fields[#fields + 1] = 'cx'; fields[#fields + 1] = cx
elseif v[8] then gone[#gone + 1] = 'cx' end
local lo, le = v[12], v[9]
if ARGV[13] == 's' then
  lo, le = ARGV[14], ARGV[15]
  fields[#fields + 1] = 'lo'; fields[#fields + 1] = lo
  fields[#fields + 1] = 'le'; fields[#fields + 1] = le
elseif ARGV[13] == 'c' then
  if v[12] then gone[#gone + 1] = 'lo' end
  if v[9] then gone[#gone + 1] = 'le' end
  lo, le = false, false
end
if ARGV[16] ~= '' then fields[#fields + 1] = 'w'; fields[#fields + 1] = ARGV[16]
elseif v[5] then gone[#gone + 1] = 'w' end
redis.call('HSET', t, unpack(fields))
if #gone > 0 then redis.call('HDEL', t, unpack(gone)) end
reindex(id, { k = v[1], st = v[6], ts = v[7], cx = v[8], fin = v[4], le = v[9], u = v[10] },
  { k = kind, st = ARGV[6], ts = ARGV[7], cx = cx, fin = fin, le = le, u = now })
-- A task that never had a push config made (no pn) has no cursor to mark: no HKEYS of an absent hash.
if n > 0 and v[13] then
  -- The outbox mark (ADR 0045), in the same step as the events: this task's webhooks have work.
  local pd = K('pd', id)
  for _, cfg in ipairs(redis.call('HKEYS', K('pc', id))) do
    local c = cursorOf(pd, cfg)
    if c then repush(id, cfg, c, seq) end
  end
end
redis.call('SPUBLISH', WAKE, id)
return { 'ok', kind, tonumber(fence), seq, v[11], now, lo, le }
`;

/** releaseClaim. ARGV: task id, key ('' none). */
export const LUA_RELEASE_CLAIM = `
local id = ARGV[1]
local v = redis.call('HMGET', K('t', id), 'f', 'q')
if not v[1] or tonumber(v[1]) ~= 1 or tonumber(v[2]) ~= 0 then return 0 end
if ARGV[2] ~= '' then
  local kk = K('k', ARGV[2])
  local k = redis.call('HMGET', kk, 't', 'tb')
  if k[1] == id and k[2] ~= '1' then
    redis.call('DEL', kk)
    redis.call('ZREM', IX_KEXP, ARGV[2])
  end
end
deleteTask(id)
return 1
`;

/** releaseKey. ARGV: key, task id, message id. */
export const LUA_RELEASE_KEY = `
local kk = K('k', ARGV[1])
local v = redis.call('HMGET', kk, 't', 'm', 'tb')
if v[1] ~= ARGV[2] or v[2] ~= ARGV[3] or v[3] == '1' then return 0 end
redis.call('DEL', kk)
redis.call('ZREM', IX_KEXP, ARGV[1])
redis.call('SREM', K('pk', ARGV[2]), ARGV[1])
return 1
`;

/**
 * listTasks (read-only). ARGV: has context, context, has state, state, has ts floor, ts floor, has position,
 * position ts, position id, page size. Listings are sorted sets of score 0 whose members are
 * \`<status ts>\\0<id>\`, so lexicographic order is the SQL stores' bytewise (ts DESC, id DESC).
 */
export const LUA_LIST = `
local idx = L_ALL
local filterSt = false
if ARGV[1] == '1' then
  idx = B .. 'lc:' .. ARGV[2]
  if ARGV[3] == '1' then filterSt = ARGV[4] end
elseif ARGV[3] == '1' then idx = B .. 'ls:' .. ARGV[4] end
local min = '-'
if ARGV[5] == '1' then min = '[' .. ARGV[6] end
local max = '+'
if ARGV[7] == '1' then max = '(' .. ARGV[8] .. Z .. ARGV[9] end
local want = tonumber(ARGV[10]) + 1
local function idOf(m) return string.sub(m, string.find(m, Z, 1, true) + 1) end
local total = 0
local page = {}
if not filterSt then
  total = redis.call('ZLEXCOUNT', idx, min, '+')
  for _, m in ipairs(redis.call('ZREVRANGEBYLEX', idx, max, min, 'LIMIT', 0, want)) do
    page[#page + 1] = taskFields(K('t', idOf(m)))
  end
else
  for _, m in ipairs(redis.call('ZREVRANGEBYLEX', idx, '+', min)) do
    if redis.call('HGET', K('t', idOf(m)), 'st') == filterSt then total = total + 1 end
  end
  for _, m in ipairs(redis.call('ZREVRANGEBYLEX', idx, max, min)) do
    if #page >= want then break end
    local t = K('t', idOf(m))
    if redis.call('HGET', t, 'st') == filterSt then page[#page + 1] = taskFields(t) end
  end
end
return { total, page }
`;
