/**
 * One retention batch of the PostgreSQL store, in one transaction: finished tasks (their events and push configs
 * cascade), then expired keys whose task is gone become tombstones, then old tombstones, up to `limit` items.
 */
import type { Scope } from '../scope.js';
import type { BatchResult } from '../sql/purge-loop.js';
import { toBool } from '../sql/sql-rows.js';
import type { PgPoolLike } from './pg-pool-like.js';
import type { PgStatements } from './pg-statements.js';
import { inTransaction } from './pg-transaction.js';

/** The instants a purge compares against, all from the store's clock. */
export interface PgPurgeCutoffs {
  readonly now: number;
  readonly taskCutoff: number;
  readonly tombCutoff: number;
}

/** A task deleted by the batch, so local watchers can be woken. */
export interface PgRemovedTask extends Scope {
  readonly id: string;
}

/** Runs one batch. */
export function pgPurgeBatch(
  pool: PgPoolLike,
  sql: PgStatements,
  cut: PgPurgeCutoffs,
  limit: number,
): Promise<{ result: BatchResult; removed: PgRemovedTask[] }> {
  return inTransaction(pool, async (c) => {
    const removed = (await c.query(sql.purgeTasks, [cut.taskCutoff, limit])).rows.map((r) => ({
      tenant: String(r.tenant),
      owner: String(r.owner),
      id: String(r.id),
    }));
    let left = limit - removed.length;
    const keys = left > 0 ? (await c.query(sql.expireKeys, [cut.now, left])).rows.length : 0;
    left -= keys;
    const tombstones =
      left > 0 ? (await c.query(sql.purgeTombstones, [cut.tombCutoff, left])).rows.length : 0;
    return { result: { tasks: removed.length, keys, tombstones }, removed };
  });
}

/** Whether anything is still eligible. */
export async function pgPurgeRemains(
  pool: PgPoolLike,
  sql: PgStatements,
  cut: PgPurgeCutoffs,
): Promise<boolean> {
  const { rows } = await pool.query(sql.anyPurgeable, [cut.taskCutoff, cut.now, cut.tombCutoff]);
  return toBool(rows[0]?.any);
}
