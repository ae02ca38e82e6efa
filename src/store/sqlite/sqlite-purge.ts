/**
 * Retention on the SQLite store: `purgeSqlite` runs the shared batch loop (../sql/purge-loop.ts) with SQLite's
 * batch size (ADR 0138). One batch (run inside an IMMEDIATE transaction) does up to `limit` items in all, in
 * this order: finished tasks, abandoned interrupted tasks (ended, not deleted), expired keys whose task is gone
 * (into tombstones), old tombstones. Keys are never deleted with their task: only the key phase and the tombstone
 * phase touch `a2a_keys`.
 */
import type { Statement } from 'better-sqlite3';
import { abandonedTaskWrite } from '../abandon.js';
import {
  DEFAULT_PURGE_BATCH_SIZE,
  SQLITE_PURGE_BATCH_SIZE,
  type PurgeReport,
  type RetentionPolicy,
} from '../retention.js';
import { runPurge } from '../sql/purge-loop.js';
import type { Scope } from '../scope.js';
import type { BatchResult } from '../sql/purge-loop.js';
import { toBool, toStoredTask, type TaskRow } from '../sql/sql-rows.js';
import { commitTx } from './sqlite-commit.js';
import { SQL } from './sqlite-statements.js';

/** The instants a purge compares against, all from the store's clock. */
export interface PurgeCutoffs {
  readonly now: number;
  /** Finished tasks last written at or before this go. */
  readonly taskCutoff: number;
  /** Interrupted tasks last written at or before this are ended; null when the policy keeps them. */
  readonly abandonCutoff: number | null;
  /** Tombstones that became tombstones at or before this go. */
  readonly tombCutoff: number;
}

/** A task the batch deleted or ended, so its watchers can be woken. */
export interface TouchedTask extends Scope {
  readonly id: string;
}

/** What a purge needs of the store: its clock's now, its statements, its write queue and its watch notifier. */
export interface SqlitePurgeContext {
  readonly now: number;
  /** The store's tombstone age, for a policy that names none. */
  readonly tombstoneTtlMs: number;
  readonly stmt: (sql: string) => Statement;
  /** Runs `fn` in the store's write queue (its group commit), in one transaction. */
  write<T>(fn: () => T): Promise<T>;
  read<T>(fn: () => T): Promise<T>;
  /** Called for each task a batch deleted or ended, once its transaction committed. */
  touched(task: TouchedTask): void;
}

/** `purgeExpired` of the SQLite store: the shared batch loop over SQLite's batches (ADR 0138). */
export function purgeSqlite(policy: RetentionPolicy, ctx: SqlitePurgeContext): Promise<PurgeReport> {
  const { now, stmt } = ctx;
  const cutoffs: PurgeCutoffs = {
    now,
    taskCutoff: now - policy.terminalMaxAgeMs,
    abandonCutoff: policy.interruptedMaxAgeMs === undefined ? null : now - policy.interruptedMaxAgeMs,
    tombCutoff: now - (policy.tombstoneMaxAgeMs ?? ctx.tombstoneTtlMs),
  };
  return runPurge(
    withSqliteBatches(policy),
    {
      prepare: () => ctx.write(() => dateUndatedTombstones(stmt, now)),
      runBatch: (limit) =>
        ctx
          .write(() => purgeBatch(stmt, cutoffs, limit))
          .then(({ result, touched }) => {
            for (const t of touched) ctx.touched(t);
            return result;
          }),
      hasPurgeable: () => ctx.read(() => purgeRemains(stmt, cutoffs)),
    },
    SQLITE_PURGE_BATCH_SIZE,
  );
}

/**
 * The policy as SQLite runs it (ADR 0138): one that names no batch size gets SQLite's smaller batches, and its
 * `maxBatches` then counts batches of the usual size, so a run may still cover as many rows as before (ten of
 * SQLite's batches for each one the policy allows).
 */
export function withSqliteBatches(policy: RetentionPolicy): RetentionPolicy {
  if (policy.batchSize !== undefined || policy.maxBatches === undefined) return policy;
  const per = Math.max(1, Math.round(DEFAULT_PURGE_BATCH_SIZE / SQLITE_PURGE_BATCH_SIZE));
  return { ...policy, maxBatches: policy.maxBatches * per };
}

/** Runs one batch. */
export function purgeBatch(
  stmt: (sql: string) => Statement,
  c: PurgeCutoffs,
  limit: number,
): { result: BatchResult; touched: TouchedTask[] } {
  const removed = stmt(SQL.purgeTasks).all({ cutoff: c.taskCutoff, limit }) as TouchedTask[];
  let left = limit - removed.length;
  const ended = left > 0 && c.abandonCutoff !== null ? endAbandoned(stmt, c.abandonCutoff, c.now, left) : [];
  left -= ended.length;
  const keys = left > 0 ? stmt(SQL.expireKeys).run({ now: c.now, limit: left }).changes : 0;
  left -= keys;
  const tombstones =
    left > 0 ? stmt(SQL.purgeTombstones).run({ cutoff: c.tombCutoff, limit: left }).changes : 0;
  return {
    result: { tasks: removed.length, abandoned: ended.length, keys, tombstones },
    touched: [...removed, ...ended],
  };
}

/**
 * Ends up to `limit` abandoned tasks with the shared write (abandon.ts) as a compare-and-set on the fence and seq
 * just read: inside the IMMEDIATE transaction nothing can move them in between, so the check is a safety net.
 */
function endAbandoned(
  stmt: (sql: string) => Statement,
  cutoff: number,
  now: number,
  limit: number,
): TouchedTask[] {
  const rows = stmt(SQL.selectAbandoned).all({ cutoff, limit }) as (TaskRow & TouchedTask)[];
  const ended: TouchedTask[] = [];
  for (const row of rows) {
    const cur = toStoredTask(row);
    const end = abandonedTaskWrite(cur.task, now);
    const scope = { tenant: String(row.tenant), owner: String(row.owner) };
    const r = commitTx(
      stmt,
      scope,
      String(row.id),
      {
        expectFence: cur.fence,
        expectSeq: cur.seq,
        nextFence: cur.fence + 1,
        task: end.task,
        events: [end.event],
      },
      now,
    );
    if (r.ok) ended.push({ ...scope, id: String(row.id) });
  }
  return ended;
}

/** Dates tombstones a build older than schema 2 wrote without `tombstoned_at`: their age starts now. */
export function dateUndatedTombstones(stmt: (sql: string) => Statement, now: number): void {
  stmt(SQL.dateUndatedTombstones).run({ now });
}

/** Whether anything is still eligible for purging. */
export function purgeRemains(stmt: (sql: string) => Statement, c: PurgeCutoffs): boolean {
  const row = stmt(SQL.anyPurgeable).get(c) as { any: unknown };
  return toBool(row.any);
}
