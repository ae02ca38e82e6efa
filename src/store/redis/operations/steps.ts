/**
 * Step records on Redis: `recordStep` (one script, fenced by the task's fence: first write wins) and `getStep`
 * (one HGET of the task's steps hash); the attempt records of a step (ADR 0121) in redis-step-attempts.ts.
 */
import type { StepRecord } from '../../records.js';
import type { Scope } from '../../scope.js';
import { stepRecord, stepResultText } from '../../sql/step-input.js';
import type { StepAttemptInput, StepAttemptRecord, StepAttemptResult } from '../../step-attempts.js';
import type { StepInput, StepResult } from '../../task-store.js';
import { scopeTag } from '../redis-keys.js';
import { list, toStepRecord } from '../redis-records.js';
import { SCRIPTS } from '../redis-scripts.js';
import { getStepAttemptRedis, writeStepAttemptRedis } from '../redis-step-attempts.js';
import { scopeBase, send, type RedisStoreContext } from './store-context.js';

export async function recordStep(
  ctx: RedisStoreContext,
  scope: Scope,
  taskId: string,
  input: StepInput,
): Promise<StepResult> {
  const text = stepResultText(input);
  const now = ctx.clock.now();
  const args = [taskId, input.name, String(input.fence), text, String(now)];
  const r = list(await SCRIPTS.recordStep.run(ctx.conn, [scopeBase(ctx, scope)], args));
  if (r[0] === 'recorded')
    return { outcome: 'recorded', step: stepRecord(taskId, input.name, text, input.fence, now) };
  if (r[0] === 'exists') return { outcome: 'exists', step: toStepRecord(taskId, input.name, String(r[1])) };
  return { outcome: 'fenced' };
}

export async function getStep(
  ctx: RedisStoreContext,
  scope: Scope,
  taskId: string,
  name: string,
): Promise<StepRecord | undefined> {
  const key = ctx.keys.steps(scopeTag(scope), taskId);
  const v = await send(ctx, ['HGET', key, name], key);
  return v === null ? undefined : toStepRecord(taskId, name, String(v));
}

export function writeStepAttempt(
  ctx: RedisStoreContext,
  scope: Scope,
  taskId: string,
  input: StepAttemptInput,
): Promise<StepAttemptResult> {
  return writeStepAttemptRedis(ctx.conn, scopeBase(ctx, scope), taskId, input, ctx.clock.now());
}

export function getStepAttempt(
  ctx: RedisStoreContext,
  scope: Scope,
  taskId: string,
  name: string,
): Promise<StepAttemptRecord | undefined> {
  return getStepAttemptRedis(ctx.conn, scopeBase(ctx, scope), taskId, name);
}
