/**
 * The scripts of durable step attempts on Redis (ADR 0121, ADR 0116). A step's latest attempt is a field of the
 * task's step hash (`K('s', id)`), named by the step name after a NUL, which no step name may hold (ADR 0059):
 * in the task's slot, and deleted with the task's steps by `deleteTask`, so retention needs nothing more.
 * The value is `<attempt>|<state>|<fence>|<at>`. The rule is the one of `../step-attempts.ts`, spelt in Lua.
 */

/** writeStepAttempt. ARGV: task id, field, fence, attempt, state, now. Returns {outcome, value or false}. */
export const LUA_WRITE_STEP_ATTEMPT = `
local s = K('s', ARGV[1])
local f = redis.call('HGET', K('t', ARGV[1]), 'f')
if not f or tonumber(f) ~= tonumber(ARGV[3]) then return { 'fenced' } end
local cur = redis.call('HGET', s, ARGV[2])
local n = tonumber(ARGV[4])
local verdict = 'conflict'
local a, st, fe
if cur then
  local pa, pst, pfe = string.match(cur, '^(%d+)|(%a+)|(%d+)|')
  a, st, fe = tonumber(pa), pst, tonumber(pfe)
end
if ARGV[5] == 'started' then
  if not cur then
    if n == 1 then verdict = 'apply' end
  elseif a == n - 1 then
    verdict = 'apply'
  elseif a == n and st == 'started' and fe == tonumber(ARGV[3]) then
    verdict = 'same'
  end
elseif cur and a == n then
  if st == 'started' then verdict = 'apply' else verdict = 'same' end
end
if verdict == 'apply' then
  local v = ARGV[4] .. '|' .. ARGV[5] .. '|' .. ARGV[3] .. '|' .. ARGV[6]
  redis.call('HSET', s, ARGV[2], v)
  return { 'written', v }
end
if verdict == 'same' then return { 'written', cur } end
return { 'conflict', cur or false }
`;

/** getStepAttempt (read-only). ARGV: task id, field. Returns the value or false. */
export const LUA_GET_STEP_ATTEMPT = `
return redis.call('HGET', K('s', ARGV[1]), ARGV[2]) or false
`;
