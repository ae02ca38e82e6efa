/**
 * Durable step attempts on SQLite (ADR 0121), run inside the store's IMMEDIATE transaction like `recordStep`
 * (sqlite-steps.ts): the write lock is held from BEGIN, so the fence check, the read of the current record and
 * the write cannot interleave with a takeover or another writer, in this process or another.
 */
import type { Statement } from 'better-sqlite3';
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

const WHERE = 'tenant = @tenant AND owner = @owner AND task_id = @taskId AND name = @name';

const SQL = {
  taskFence: 'SELECT fence FROM a2a_tasks WHERE tenant = @tenant AND owner = @owner AND id = @taskId',
  select: `SELECT ${STEP_ATTEMPT_COLUMNS} FROM a2a_step_attempts WHERE ${WHERE}`,
  upsert: `INSERT INTO a2a_step_attempts (tenant, owner, task_id, name, attempt, state, fence, updated_at)
    VALUES (@tenant, @owner, @taskId, @name, @attempt, @state, @fence, @now)
    ON CONFLICT (tenant, owner, task_id, name) DO UPDATE SET
      attempt = excluded.attempt, state = excluded.state, fence = excluded.fence, updated_at = excluded.updated_at`,
} as const;

/** Writes the attempt record if the rule allows it and the fence holds; call inside an IMMEDIATE transaction. */
export function writeStepAttemptTx(
  stmt: (sql: string) => Statement,
  scope: Scope,
  taskId: string,
  input: StepAttemptInput,
  now: number,
): StepAttemptResult {
  checkStepAttemptInput(input);
  const at = { tenant: scope.tenant, owner: scope.owner, taskId };
  const task = stmt(SQL.taskFence).get(at) as { fence: number } | undefined;
  if (task?.fence !== input.fence) return { outcome: 'fenced' };
  const row = stmt(SQL.select).get({ ...at, name: input.name }) as StepAttemptRow | undefined;
  const current = row && toStepAttemptRecord(row);
  switch (stepAttemptTransition(current, input)) {
    case 'conflict':
      return { outcome: 'conflict', current };
    case 'same':
      return { outcome: 'written', record: current! };
    case 'apply':
      stmt(SQL.upsert).run({ ...at, ...input, now });
      return { outcome: 'written', record: appliedStepAttempt(taskId, input, now) };
  }
}

/** The latest attempt of the step, if any. */
export function selectStepAttempt(
  stmt: (sql: string) => Statement,
  scope: Scope,
  taskId: string,
  name: string,
): StepAttemptRecord | undefined {
  const row = stmt(SQL.select).get({ tenant: scope.tenant, owner: scope.owner, taskId, name }) as
    StepAttemptRow | undefined;
  return row && toStepAttemptRecord(row);
}
