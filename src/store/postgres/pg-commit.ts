/**
 * The compare-and-set of the PostgreSQL store: `commit` runs it as one statement on the pool (its own transaction,
 * one round trip, ADR 0047), and retention's abandoned phase inside its transaction, so ending an abandoned task
 * is written exactly like any other status change. The UPDATE holds the task's row lock; concurrent writers queue
 * on it and each re-checks fence and seq against the row the previous one committed (READ COMMITTED re-evaluates
 * the WHERE on the newest version); the events and the outbox mark are written by the same statement.
 */
import type { Scope } from '../scope.js';
import { deriveColumns, toStoredTask, type TaskRow } from '../sql/sql-rows.js';
import { checkWriteId, leaseAt } from '../sql/worker-lease.js';
import { refusedOrLanded, type CommitResult, type TaskWrite } from '../task-store.js';
import type { PgQueryable } from './pg-pool-like.js';
import type { PgStatements } from './pg-statements.js';
import type { PgTables } from './pg-tables.js';

/** Where a commit runs: the pool (one statement is its own transaction) or a client inside one. */
export interface PgCommitContext {
  readonly c: PgQueryable;
  readonly sql: PgStatements;
  readonly tables: PgTables;
}

/**
 * Applies `write` if the stored fence (and seq, when given) match, appending its events and setting, clearing or
 * keeping the worker lease as it says (the caller checked a grant). The lease rides in the same UPDATE.
 */
export async function commitPg(
  ctx: PgCommitContext,
  scope: Scope,
  taskId: string,
  write: TaskWrite,
  now: number,
): Promise<CommitResult> {
  const { c, sql } = ctx;
  const updated = await c.query(sql.commitTask, [
    ...commitValues(scope, taskId, write, now),
    eventTexts(write),
  ]);
  const row = updated.rows[0];
  if (!row) {
    // Refused, or an earlier attempt of this write landed (ADR 0052): the row says which.
    const current = (await c.query(sql.selectTaskWriteId, [scope.tenant, scope.owner, taskId])).rows[0];
    return refusedOrLanded(
      write,
      current ? toStoredTask(current as unknown as TaskRow) : undefined,
      typeof current?.write_id === 'string' ? current.write_id : undefined,
    );
  }
  return committed(row, write);
}

/** The parameters $1..$18 of `commitTask` (and, an array each, of `commitTaskMany`). */
export function commitValues(scope: Scope, taskId: string, write: TaskWrite, now: number): unknown[] {
  const writeId = checkWriteId(write.writeId);
  const d = deriveColumns(write.task, write.reply ? 'message' : 'task');
  const lease = write.lease ? leaseAt(write.lease, now) : undefined;
  return [
    scope.tenant,
    scope.owner,
    taskId,
    JSON.stringify(write.task),
    write.reply ? JSON.stringify(write.reply) : null,
    write.nextFence ?? null,
    write.events.length,
    d.statusState,
    d.statusTs,
    d.contextId,
    d.terminal,
    now,
    write.expectFence,
    write.expectSeq ?? null,
    write.lease !== undefined,
    lease?.owner ?? null,
    lease?.expiresAt ?? null,
    writeId ?? null,
  ];
}

/** The events a write appends, as stored. */
export function eventTexts(write: TaskWrite): string[] {
  return write.events.map((e) => JSON.stringify(e));
}

/**
 * The outcome of a commit whose row came back. The row comes back without its task (see TASK_HEAD_COLUMNS): the
 * caller's objects are the snapshot, as the memory store returns them.
 */
export function committed(row: Record<string, unknown>, write: TaskWrite): CommitResult {
  const record = toStoredTask(row as unknown as TaskRow);
  return {
    ok: true,
    record: { ...record, task: write.task, ...(write.reply ? { reply: write.reply } : {}) },
  };
}
