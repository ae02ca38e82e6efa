/**
 * Durable steps on SQLite (ADR 0036), run inside the store's IMMEDIATE transaction: the write lock is held from
 * BEGIN, so the lookup of an earlier record, the fence check and the insert cannot interleave with a takeover or
 * another recorder, in this process or another.
 */
import type { Statement } from 'better-sqlite3';
import type { StepRecord } from '../records.js';
import type { Scope } from '../scope.js';
import { stepRecord } from '../sql/step-input.js';
import { toStepRecord, type StepRow } from '../sql/sql-rows.js';
import type { StepResult } from '../task-store.js';
import { SQL } from './sqlite-statements.js';

/** What `recordStep` writes: the checked name and fence, and the result as JSON text. */
export interface StepWrite {
  readonly name: string;
  readonly fence: number;
  readonly text: string;
}

/** Records the step unless one of that name exists or the fence moved; call inside an IMMEDIATE transaction. */
export function recordStepTx(
  stmt: (sql: string) => Statement,
  scope: Scope,
  taskId: string,
  step: StepWrite,
  now: number,
): StepResult {
  const earlier = stmt(SQL.selectStep).get({
    tenant: scope.tenant,
    owner: scope.owner,
    taskId,
    name: step.name,
  }) as StepRow | undefined;
  // The first record wins whatever the caller's fence: a resumed worker reads what its predecessor recorded.
  if (earlier) return { outcome: 'exists', step: toStepRecord(earlier) };
  const task = stmt(SQL.taskFence).get({ tenant: scope.tenant, owner: scope.owner, taskId }) as
    { fence: number } | undefined;
  if (task?.fence !== step.fence) return { outcome: 'fenced' };
  stmt(SQL.insertStep).run({
    tenant: scope.tenant,
    owner: scope.owner,
    taskId,
    name: step.name,
    result: step.text,
    fence: step.fence,
    now,
  });
  return { outcome: 'recorded', step: stepRecord(taskId, step.name, step.text, step.fence, now) };
}

/** The recorded step, if any. */
export function selectStep(
  stmt: (sql: string) => Statement,
  scope: Scope,
  taskId: string,
  name: string,
): StepRecord | undefined {
  const row = stmt(SQL.selectStep).get({ tenant: scope.tenant, owner: scope.owner, taskId, name }) as
    StepRow | undefined;
  return row ? toStepRecord(row) : undefined;
}
