/**
 * The scripts of worker leases, durable steps, delegation renewals, retention and leadership (ADR 0116).
 * Retention runs one scope at a time, a batch each: the store-wide loop is in redis-purge.ts.
 */

/** renewLease. ARGV: task id, fence, owner, new expiry. */
export const LUA_RENEW_LEASE = `
local id = ARGV[1]
local t = K('t', id)
local v = redis.call('HMGET', t, 'f', 'lo')
if not v[1] or tonumber(v[1]) ~= tonumber(ARGV[2]) or v[2] ~= ARGV[3] then return 0 end
local d = derivedOf(id)
redis.call('HSET', t, 'le', ARGV[4])
local n = { k = d.k, st = d.st, ts = d.ts, cx = d.cx, fin = d.fin, le = ARGV[4], u = d.u }
reindex(id, d, n)
return 1
`;

/**
 * findLapsedLeases on one scope (read-only). ARGV: now, limit. Flat: id, the task's fields (taskFields), ...: the
 * record is read with the listing, so recovery need not read it again (ADR 0131).
 */
export const LUA_LAPSED = `
local out = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', IX_LEASE, '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))) do
  local v = taskFields(K('t', id))
  if v[4] and v[8] then
    out[#out + 1] = id; out[#out + 1] = v
  end
end
return out
`;

/** leaseCensus on one scope (read-only). ARGV: now. Returns {held, first expiry or nil}. */
export const LUA_CENSUS = `
local held = redis.call('ZCOUNT', IX_LEASE, '(' .. ARGV[1], '+inf')
local first = redis.call('ZRANGEBYSCORE', IX_LEASE, '(' .. ARGV[1], '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
return { held, first[2] or false }
`;

/** recordStep. ARGV: task id, name, fence, result text, now. The step value is \`<fence>|<at>|<result>\`. */
export const LUA_RECORD_STEP = `
local s = K('s', ARGV[1])
local had = redis.call('HGET', s, ARGV[2])
if had then return { 'exists', had } end
local f = redis.call('HGET', K('t', ARGV[1]), 'f')
if not f or tonumber(f) ~= tonumber(ARGV[3]) then return { 'fenced' } end
redis.call('HSET', s, ARGV[2], ARGV[3] .. '|' .. ARGV[5] .. '|' .. ARGV[4])
return { 'recorded' }
`;

/** recordParentRenewal. ARGV: task id, now. Only a task-kind record that is not finished. */
export const LUA_PARENT_RENEWAL = `
local t = K('t', ARGV[1])
local v = redis.call('HMGET', t, 'k', 'fin')
if v[1] ~= 'task' or v[2] == '1' then return 0 end
redis.call('HSET', t, 'pr', ARGV[2])
return 1
`;

/**
 * One retention batch of one scope, in its first phase: finished tasks last written at or before the cutoff.
 * ARGV: cutoff, limit. Returns the ids deleted.
 */
export const LUA_PURGE_TASKS = `
local out = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', IX_FIN, '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))) do
  local v = redis.call('HMGET', K('t', id), 'fin', 'u')
  if v[1] == '1' and tonumber(v[2]) <= tonumber(ARGV[1]) then
    deleteTask(id)
    out[#out + 1] = id
  else
    redis.call('ZREM', IX_FIN, id)
    local d = derivedOf(id)
    if d then index(id, d) end
  end
end
return out
`;

/**
 * The last phases of a scope's batch: expired keys whose task is gone into tombstones, then tombstones made at or
 * before the cutoff deleted. ARGV: now, tombstone cutoff, limit, tombstone TTL. Returns {keys, tombstones, empty}.
 */
export const LUA_PURGE_KEYS = `
local now, cutoff, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local keys = 0
for round = 1, 64 do
  if keys >= limit then break end
  local made, seen = expireKeys(now, limit - keys, ARGV[4])
  keys = keys + made
  if seen == 0 then break end
end
local tombs = 0
if keys < limit then
  for _, key in ipairs(redis.call('ZRANGEBYSCORE', IX_TOMB, '-inf', cutoff, 'LIMIT', 0, limit - keys)) do
    local kk = K('k', key)
    local v = redis.call('HMGET', kk, 'tb', 'ta')
    if v[1] == '1' and tonumber(v[2]) <= cutoff then
      redis.call('DEL', kk)
      tombs = tombs + 1
    elseif not v[1] then
      -- Its Redis TTL (the same age) ran out first: a tombstone past its age all the same, counted as purged.
      tombs = tombs + 1
    end
    redis.call('ZREM', IX_TOMB, key)
  end
end
local empty = redis.call('EXISTS', L_ALL, IX_FIN, IX_KEXP, IX_TOMB) == 0
return { keys, tombs, empty and 1 or 0 }
`;

/**
 * Whether the scope still has anything retention would do (read-only). ARGV: task cutoff, abandon cutoff ('' none),
 * now, tombstone cutoff.
 */
export const LUA_PURGE_REMAINS = `
if redis.call('ZCOUNT', IX_FIN, '-inf', ARGV[1]) > 0 then return 1 end
if ARGV[2] ~= '' and redis.call('ZCOUNT', IX_INTR, '-inf', ARGV[2]) > 0 then return 1 end
for _, key in ipairs(redis.call('ZRANGEBYSCORE', IX_KEXP, '-inf', ARGV[3], 'LIMIT', 0, 1000)) do
  local t = redis.call('HGET', K('k', key), 't')
  if t and redis.call('EXISTS', K('t', t)) == 0 then return 1 end
end
for _, key in ipairs(redis.call('ZRANGEBYSCORE', IX_TOMB, '-inf', ARGV[4], 'LIMIT', 0, 1000)) do
  if redis.call('HGET', K('k', key), 'tb') == '1' then return 1 end
end
return 0
`;

/** Live keys of one scope (read-only): parked keys are live too. */
export const LUA_LIVE_KEYS = `return redis.call('ZCARD', IX_KEXP)`;

/**
 * tryLead, on the role's own key (no scope prelude). ARGV: holder, until, now, Redis TTL in ms (the role's lease
 * and a margin: the store's clock decides, Redis only frees the memory of a role nobody renews).
 */
export const LUA_TRY_LEAD = `
local v = redis.call('HMGET', KEYS[1], 'h', 'x')
if v[1] and v[1] ~= ARGV[1] and tonumber(v[2]) > tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[1], 'h', ARGV[1], 'x', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`;

/**
 * Forgets a scope in the registry (no scope prelude) if nobody registered it since the cutoff: its slot was
 * found empty, and every process re-registers a scope it writes to more often than that (redis-scopes.ts).
 */
export const LUA_FORGET_SCOPE = `
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if s and tonumber(s) <= tonumber(ARGV[2]) then redis.call('ZREM', KEYS[1], ARGV[1]); return 1 end
return 0
`;
