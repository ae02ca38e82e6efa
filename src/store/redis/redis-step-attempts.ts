/**
 * Durable step attempts on Redis (ADR 0121): `writeStepAttempt` and `getStepAttempt` of the Redis store, each
 * one script on the scope's slot (lua/lua-step-attempts.ts).
 */
import {
  checkStepAttemptInput,
  stepAttemptState,
  type StepAttemptInput,
  type StepAttemptRecord,
  type StepAttemptResult,
} from '../step-attempts.js';
import { LUA_GET_STEP_ATTEMPT, LUA_WRITE_STEP_ATTEMPT } from './lua/lua-step-attempts.js';
import type { RedisConnection, RedisReply } from './redis-connection.js';
import { list } from './redis-records.js';
import { libraryScript } from './redis-scripts.js';

const WRITE = libraryScript('write-step-attempt', LUA_WRITE_STEP_ATTEMPT);
const GET = libraryScript('get-step-attempt', LUA_GET_STEP_ATTEMPT, { readOnly: true });

/** The field of the step hash that holds the attempt of step `name`: no step name starts with NUL. */
function field(name: string): string {
  return `\u0000${name}`;
}

function toRecord(taskId: string, name: string, value: RedisReply): StepAttemptRecord {
  const [attempt, state, fence, at] = String(value).split('|');
  return {
    taskId,
    name,
    attempt: Number(attempt),
    state: stepAttemptState(state),
    fence: Number(fence),
    updatedAt: Number(at),
  };
}

/** Writes the attempt record if the rule allows it and the fence holds; `base` is the scope's key base. */
export async function writeStepAttemptRedis(
  conn: RedisConnection,
  base: string,
  taskId: string,
  input: StepAttemptInput,
  now: number,
): Promise<StepAttemptResult> {
  checkStepAttemptInput(input);
  const args = [
    taskId,
    field(input.name),
    String(input.fence),
    String(input.attempt),
    input.state,
    String(now),
  ];
  const r = list(await WRITE.run(conn, [base], args));
  if (r[0] === 'written') return { outcome: 'written', record: toRecord(taskId, input.name, r[1] ?? null) };
  if (r[0] === 'conflict') {
    const cur = r[1];
    return { outcome: 'conflict', current: cur ? toRecord(taskId, input.name, cur) : undefined };
  }
  return { outcome: 'fenced' };
}

/** The latest attempt of the step, if any. */
export async function getStepAttemptRedis(
  conn: RedisConnection,
  base: string,
  taskId: string,
  name: string,
): Promise<StepAttemptRecord | undefined> {
  const v = await GET.run(conn, [base], [taskId, field(name)]);
  return v === null ? undefined : toRecord(taskId, name, v);
}
