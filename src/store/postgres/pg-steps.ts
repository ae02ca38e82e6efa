/**
 * Durable steps on PostgreSQL (ADR 0036). The record is one statement (`recordStep` in pg-statements.ts): the
 * fence check holds the task's row FOR SHARE and the insert is `ON CONFLICT DO NOTHING`, so it needs no
 * transaction of its own. When it inserts nothing, a second statement tells "a step of that name exists" (it
 * sees the committed row, also one a racing recorder just committed) from "the fence moved or the task is gone".
 */
import type { StepRecord } from '../records.js';
import type { Scope } from '../scope.js';
import { stepRecord } from '../sql/step-input.js';
import { toStepRecord, type StepRow } from '../sql/sql-rows.js';
import type { StepResult } from '../task-store.js';
import type { PgQueryable } from './pg-pool-like.js';
import type { PgStatements } from './pg-statements.js';

/** What `recordStep` writes: the checked name and fence, and the result as JSON text. */
export interface PgStepWrite {
  readonly name: string;
  readonly fence: number;
  readonly text: string;
}

/** Records the step unless one of that name exists or the fence moved. */
export async function recordStepPg(
  q: PgQueryable,
  sql: PgStatements,
  scope: Scope,
  taskId: string,
  step: PgStepWrite,
  now: number,
): Promise<StepResult> {
  const args = [scope.tenant, scope.owner, taskId, step.fence, step.name, step.text, now];
  const inserted = await q.query(sql.recordStep, args);
  if (inserted.rows.length === 1) {
    return { outcome: 'recorded', step: stepRecord(taskId, step.name, step.text, step.fence, now) };
  }
  // The first record wins whatever the caller's fence: a resumed worker reads what its predecessor recorded.
  const earlier = await selectStepPg(q, sql, scope, taskId, step.name);
  return earlier ? { outcome: 'exists', step: earlier } : { outcome: 'fenced' };
}

/** The recorded step, if any. */
export async function selectStepPg(
  q: PgQueryable,
  sql: PgStatements,
  scope: Scope,
  taskId: string,
  name: string,
): Promise<StepRecord | undefined> {
  const row = (await q.query(sql.selectStep, [scope.tenant, scope.owner, taskId, name])).rows[0];
  return row ? toStepRecord(row as unknown as StepRow) : undefined;
}
