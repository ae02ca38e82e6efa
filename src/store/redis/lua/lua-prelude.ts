/**
 * The Lua every scope script starts with (ADR 0116): the names of the scope's keys, built from KEYS[1] (the
 * scope's base, `<prefix>{<tag>}:`, so every key a script touches is in KEYS[1]'s slot), and the helpers that
 * keep a task's indexes, a key's life and a push cursor in step. Loaded once as the head of the store's function
 * library (`LUA_LIBRARY_PRELUDE`, ADR 0133), or run at the head of a script sent alone (`LUA_PRELUDE`). Each script runs atomically on the server: that
 * is the store's whole atomicity argument, as the single critical section is the memory store's.
 *
 * Task hash fields: j task JSON, k kind, r reply JSON, f fence, q seq, c created, u updated, lo/le lease owner and
 * expiry, w last write id, pr parent renewal, st state, ts status timestamp, cx context id, fin finished ('1'),
 * fm first message id, pn push configs made. Key hash fields: m message id, d digest, t task id, c created,
 * e expires, tb tombstone ('1'), ta tombstoned at. Push cursor fields live in the task's `pd` hash as
 * `<config id>\0<field>`.
 */
export const LUA_LIBRARY_PRELUDE = `
local B, L_ALL, IX_LEASE, IX_FIN, IX_INTR, IX_KEXP, IX_TOMB, IX_PUSH, WAKE
local Z = '\\0'
-- The scope's names, from its base: set at the start of every call, not where the helpers are defined, because a
-- function library (ADR 0133) defines them once and then serves calls on every scope of its node.
local function useScope(base)
  B = base
  L_ALL = B .. 'l'
  IX_LEASE = B .. 'ix:lease'
  IX_FIN = B .. 'ix:fin'
  IX_INTR = B .. 'ix:intr'
  IX_KEXP = B .. 'ix:kexp'
  IX_TOMB = B .. 'ix:tomb'
  IX_PUSH = B .. 'ix:push'
  WAKE = B .. 'w'
end
local function K(kind, name) return B .. kind .. ':' .. name end

local function running(st) return st == 'TASK_STATE_SUBMITTED' or st == 'TASK_STATE_WORKING' end
local function interrupted(st) return st == 'TASK_STATE_INPUT_REQUIRED' or st == 'TASK_STATE_AUTH_REQUIRED' end

local function taskFields(t) return redis.call('HMGET', t, 'j', 'k', 'r', 'f', 'q', 'c', 'u', 'lo', 'le') end

local function derivedOf(id)
  local v = redis.call('HMGET', K('t', id), 'k', 'st', 'ts', 'cx', 'fin', 'le', 'u')
  if not v[1] then return false end
  return { k = v[1], st = v[2], ts = v[3], cx = v[4], fin = v[5], le = v[6], u = v[7] }
end

local function unindex(id, d)
  if d.k == 'task' then
    local m = d.ts .. Z .. id
    redis.call('ZREM', L_ALL, m)
    redis.call('ZREM', B .. 'ls:' .. d.st, m)
    if d.cx then redis.call('ZREM', B .. 'lc:' .. d.cx, m) end
  end
  redis.call('ZREM', IX_FIN, id)
  redis.call('ZREM', IX_INTR, id)
  redis.call('ZREM', IX_LEASE, id)
end

local function index(id, d)
  if d.k == 'task' then
    local m = d.ts .. Z .. id
    redis.call('ZADD', L_ALL, 0, m)
    redis.call('ZADD', B .. 'ls:' .. d.st, 0, m)
    if d.cx then redis.call('ZADD', B .. 'lc:' .. d.cx, 0, m) end
  end
  if d.fin == '1' then redis.call('ZADD', IX_FIN, d.u, id)
  elseif d.k == 'task' and interrupted(d.st) then redis.call('ZADD', IX_INTR, d.u, id)
  elseif d.k == 'task' and running(d.st) and d.le then redis.call('ZADD', IX_LEASE, d.le, id) end
end

-- The one of the finished, interrupted and lease indexes a task belongs in, with its score there (as index does).
local function placeOf(d)
  if d.fin == '1' then return IX_FIN, tostring(d.u) end
  if d.k == 'task' and interrupted(d.st) then return IX_INTR, tostring(d.u) end
  if d.k == 'task' and running(d.st) and d.le then return IX_LEASE, tostring(d.le) end
  return false, false
end

-- Moves a task from the indexes of its old derived fields o to those of its new ones n, the same end state as
-- unindex(o) then index(n) but touching only what changed: a commit that keeps its state and context moves
-- nothing in the list indexes, a lease renewal only rescores the lease index (ADR 0128).
local function reindex(id, o, n)
  local om = o.k == 'task' and (o.ts .. Z .. id)
  local nm = n.k == 'task' and (n.ts .. Z .. id)
  local moved = om ~= nm
  if om then
    if moved then redis.call('ZREM', L_ALL, om) end
    if moved or o.st ~= n.st then redis.call('ZREM', B .. 'ls:' .. o.st, om) end
    if o.cx and (moved or o.cx ~= n.cx) then redis.call('ZREM', B .. 'lc:' .. o.cx, om) end
  end
  if nm then
    if moved then redis.call('ZADD', L_ALL, 0, nm) end
    if moved or o.st ~= n.st then redis.call('ZADD', B .. 'ls:' .. n.st, 0, nm) end
    if n.cx and (moved or o.cx ~= n.cx) then redis.call('ZADD', B .. 'lc:' .. n.cx, 0, nm) end
  end
  local oi, os = placeOf(o)
  local ni, ns = placeOf(n)
  if oi and oi ~= ni then redis.call('ZREM', oi, id) end
  if ni and (ni ~= oi or ns ~= os) then redis.call('ZADD', ni, ns, id) end
end

local CURSOR = { 'pos', 'ds', 'at', 'na', 'fs', 'le', 'gu', 'gf', 'gt', 'ga', 'gr', 'ch', 'cu' }
local CURSOR_NUM = { pos = true, ds = true, at = true, na = true, fs = true, gu = true, gf = true, gt = true,
  ga = true, cu = true }

local function cursorOf(pd, cfg)
  local f = {}
  for i, n in ipairs(CURSOR) do f[i] = cfg .. Z .. n end
  local v = redis.call('HMGET', pd, unpack(f))
  if not v[1] then return false end
  local c = {}
  for i, n in ipairs(CURSOR) do
    if v[i] and CURSOR_NUM[n] then c[n] = tonumber(v[i]) else c[n] = v[i] end
  end
  return c
end

local function saveCursor(pd, cfg, c)
  local set, del = {}, {}
  for _, n in ipairs(CURSOR) do
    if c[n] then set[#set + 1] = cfg .. Z .. n; set[#set + 1] = tostring(c[n])
    else del[#del + 1] = cfg .. Z .. n end
  end
  redis.call('HSET', pd, unpack(set))
  if #del > 0 then redis.call('HDEL', pd, unpack(del)) end
end

local function cursorReply(c)
  return { c.ds, c.at, c.na, c.fs or false, c.le or false, c.gu, c.gf or false, c.gt or false, c.ga or false,
    c.gr or false }
end

-- The push index holds a cursor with work (task seq past the cursor) by the earliest time it can be claimed.
local function repush(id, cfg, c, seq)
  local m = id .. Z .. cfg
  if seq > c.ds then redis.call('ZADD', IX_PUSH, math.max(c.na, c.cu or 0), m)
  else redis.call('ZREM', IX_PUSH, m) end
end

local function putConfig(id, cfg, json)
  local t = K('t', id)
  local pd = K('pd', id)
  redis.call('HSET', K('pc', id), cfg, json)
  local c = cursorOf(pd, cfg)
  local v = redis.call('HMGET', t, 'q', 'fin')
  local seq = tonumber(v[1])
  if not c then
    c = { pos = redis.call('HINCRBY', t, 'pn', 1), ds = 0, at = 0, na = 0, gu = 0 }
    if v[2] == '1' then c.ds = seq end
    saveCursor(pd, cfg, c)
  end
  repush(id, cfg, c, seq)
end

local function tombstone(key, taskId, now, ttl)
  local kk = K('k', key)
  redis.call('HSET', kk, 'tb', '1', 'ta', now)
  redis.call('ZREM', IX_KEXP, key)
  redis.call('SREM', K('pk', taskId), key)
  redis.call('ZADD', IX_TOMB, now, key)
  redis.call('PEXPIRE', kk, ttl)
end

-- Looks at up to budget keys past their expiry: a key whose task is gone becomes a tombstone; one whose task
-- still exists is parked on it (scored +inf, so it stays counted as live and is not looked at again until the
-- task goes). Returns the tombstones made and the keys looked at.
local function expireKeys(now, budget, ttl)
  local made = 0
  local due = redis.call('ZRANGEBYSCORE', IX_KEXP, '-inf', now, 'LIMIT', 0, budget)
  for _, key in ipairs(due) do
    local t = redis.call('HGET', K('k', key), 't')
    if not t then redis.call('ZREM', IX_KEXP, key)
    elseif redis.call('EXISTS', K('t', t)) == 1 then
      redis.call('ZADD', IX_KEXP, '+inf', key)
      redis.call('SADD', K('pk', t), key)
    else
      tombstone(key, t, now, ttl)
      made = made + 1
    end
  end
  return made, #due
end

local function keyFields(kk) return redis.call('HMGET', kk, 'm', 'd', 't', 'c', 'e', 'tb', 'ta') end

-- Why key cannot be claimed now, or false when it can (docs/semantics.md §2): held while unexpired or while its
-- task exists; an expired key whose task is gone becomes a tombstone; a tombstone is refused, or replaced.
local function refuseClaim(key, now, maxKeys, replace, ttl, budget)
  local kk = K('k', key)
  local v = keyFields(kk)
  if v[3] then
    if v[6] ~= '1' then
      if tonumber(v[5]) > now or redis.call('EXISTS', K('t', v[3])) == 1 then return { 'held', v } end
      tombstone(key, v[3], now, ttl)
      v[6] = '1'
      v[7] = tostring(now)
    end
    if not replace then return { 'expired', v } end
    redis.call('DEL', kk)
    redis.call('ZREM', IX_TOMB, key)
  end
  if maxKeys >= 0 and redis.call('ZCARD', IX_KEXP) >= maxKeys then
    expireKeys(now, budget, ttl)
    if redis.call('ZCARD', IX_KEXP) >= maxKeys then return { 'capacity' } end
  end
  return false
end

local function putKey(key, messageId, digest, taskId, now, expiresAt)
  redis.call('HSET', K('k', key), 'm', messageId, 'd', digest, 't', taskId, 'c', now, 'e', expiresAt)
  redis.call('ZADD', IX_KEXP, expiresAt, key)
end

-- Deletes a task with its events, push configs, cursors and steps; never its keys (ADR 0115): keys parked on it
-- go back to the expiry index, to become tombstones when their time comes.
local function deleteTask(id)
  local d = derivedOf(id)
  if not d then return false end
  unindex(id, d)
  local pc = K('pc', id)
  for _, cfg in ipairs(redis.call('HKEYS', pc)) do redis.call('ZREM', IX_PUSH, id .. Z .. cfg) end
  local pk = K('pk', id)
  for _, key in ipairs(redis.call('SMEMBERS', pk)) do
    local v = redis.call('HMGET', K('k', key), 't', 'tb', 'e')
    if v[1] == id and v[2] ~= '1' then redis.call('ZADD', IX_KEXP, v[3], key) end
  end
  redis.call('DEL', K('t', id), K('e', id), pc, K('pd', id), K('s', id), pk)
  redis.call('SPUBLISH', WAKE, id)
  return true
end
`;

/** The prelude of a script sent on its own (`EVALSHA`): the helpers, then the names of KEYS[1]'s scope. */
export const LUA_PRELUDE = `${LUA_LIBRARY_PRELUDE}
useScope(KEYS[1])
`;
