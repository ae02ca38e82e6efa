/**
 * Durable step attempts on PostgreSQL (ADR 0121), in one transaction: the task's row is read FOR SHARE (a
 * takeover, an UPDATE of that row, either committed first and the fence no longer matches, or waits until the
 * write is in), the attempt's row FOR UPDATE (two writers of one step queue, and the second sees the first's
 * row), then the shared rule of `../step-attempts.ts` decides.
 */
import type { Scope } from '../scope.js';
import { STEP_ATTEMPT_COLUMNS, toStepAttemptRecord, type StepAttemptRow } from '../sql/step-attempt-rows.js';
import {
  checkStepAttemptInput,
  appliedStepAttempt,
  stepAttemptTransition,
  type StepAttemptInput,
  type StepAttemptRecord,
  type StepAttemptResult,
} from '../step-attempts.js';
import type { PgPoolLike, PgQueryable } from './pg-pool-like.js';
import type { PgTables } from './pg-tables.js';
import { inTransaction } from './pg-transaction.js';

/** The statements, for the store's schema. */
export interface PgStepAttemptStatements {
  readonly taskFence: string;
  readonly select: string;
  readonly selectForUpdate: string;
  readonly upsert: string;
}

/** The statements of `t`'s schema. */
export function pgStepAttemptStatements(t: PgTables): PgStepAttemptStatements {
  const where = 'tenant = $1 AND owner = $2 AND task_id = $3 AND name = $4';
  return {
    taskFence: `SELECT fence FROM ${t.tasks} WHERE tenant = $1 AND owner = $2 AND id = $3 FOR SHARE`,
    select: `SELECT ${STEP_ATTEMPT_COLUMNS} FROM ${t.stepAttempts} WHERE ${where}`,
    selectForUpdate: `SELECT ${STEP_ATTEMPT_COLUMNS} FROM ${t.stepAttempts} WHERE ${where} FOR UPDATE`,
    upsert: `INSERT INTO ${t.stepAttempts} (tenant, owner, task_id, name, attempt, state, fence, updated_at)
      VALUES ($1, $2, $3, $4, $5::int, $6, $7::int, $8::bigint)
      ON CONFLICT (tenant, owner, task_id, name) DO UPDATE SET
        attempt = EXCLUDED.attempt, state = EXCLUDED.state, fence = EXCLUDED.fence, updated_at = EXCLUDED.updated_at`,
  };
}

/** Writes the attempt record if the rule allows it and the fence holds. */
export async function writeStepAttemptPg(
  pool: PgPoolLike,
  sql: PgStepAttemptStatements,
  scope: Scope,
  taskId: string,
  input: StepAttemptInput,
  now: number,
): Promise<StepAttemptResult> {
  checkStepAttemptInput(input);
  const at = [scope.tenant, scope.owner, taskId];
  return inTransaction(pool, async (c): Promise<StepAttemptResult> => {
    const task = (await c.query(sql.taskFence, at)).rows[0] as { fence: number } | undefined;
    if (task === undefined || Number(task.fence) !== input.fence) return { outcome: 'fenced' };
    const row = (await c.query(sql.selectForUpdate, [...at, input.name])).rows[0] as
      StepAttemptRow | undefined;
    const current = row && toStepAttemptRecord(row);
    switch (stepAttemptTransition(current, input)) {
      case 'conflict':
        return { outcome: 'conflict', current };
      case 'same':
        return { outcome: 'written', record: current! };
      case 'apply':
        await c.query(sql.upsert, [...at, input.name, input.attempt, input.state, input.fence, now]);
        return { outcome: 'written', record: appliedStepAttempt(taskId, input, now) };
    }
  });
}

/** The latest attempt of the step, if any. */
export async function selectStepAttemptPg(
  q: PgQueryable,
  sql: PgStepAttemptStatements,
  scope: Scope,
  taskId: string,
  name: string,
): Promise<StepAttemptRecord | undefined> {
  const row = (await q.query(sql.select, [scope.tenant, scope.owner, taskId, name])).rows[0];
  return row ? toStepAttemptRecord(row as unknown as StepAttemptRow) : undefined;
}
