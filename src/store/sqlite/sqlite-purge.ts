/**
 * One retention batch of the SQLite store (run inside an IMMEDIATE transaction): finished tasks first, then
 * expired keys whose task is gone become tombstones, then old tombstones go, up to `limit` items in all. Keys are
 * never deleted with their task: only the key phase and the tombstone phase touch `a2a_keys`.
 */
import type { Statement } from 'better-sqlite3';
import type { Scope } from '../scope.js';
import type { BatchResult } from '../sql/purge-loop.js';
import { toBool } from '../sql/sql-rows.js';
import { SQL } from './sqlite-statements.js';

/** The instants a purge compares against, all from the store's clock. */
export interface PurgeCutoffs {
  readonly now: number;
  /** Finished tasks last written at or before this go. */
  readonly taskCutoff: number;
  /** Tombstones whose key expired at or before this go. */
  readonly tombCutoff: number;
}

/** A task deleted by the batch, so its watchers can be woken. */
export interface RemovedTask extends Scope {
  readonly id: string;
}

/** Runs one batch. */
export function purgeBatch(
  stmt: (sql: string) => Statement,
  c: PurgeCutoffs,
  limit: number,
): { result: BatchResult; removed: RemovedTask[] } {
  const removed = stmt(SQL.purgeTasks).all({ cutoff: c.taskCutoff, limit }) as RemovedTask[];
  let left = limit - removed.length;
  const keys = left > 0 ? stmt(SQL.expireKeys).run({ now: c.now, limit: left }).changes : 0;
  left -= keys;
  const tombstones =
    left > 0 ? stmt(SQL.purgeTombstones).run({ cutoff: c.tombCutoff, limit: left }).changes : 0;
  return { result: { tasks: removed.length, keys, tombstones }, removed };
}

/** Whether anything is still eligible for purging. */
export function purgeRemains(stmt: (sql: string) => Statement, c: PurgeCutoffs): boolean {
  const row = stmt(SQL.anyPurgeable).get(c) as { any: unknown };
  return toBool(row.any);
}
