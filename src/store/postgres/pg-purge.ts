/**
 * One retention batch of the PostgreSQL store, in one transaction, up to `limit` items in all, in this order:
 * finished tasks (their events and push configs cascade), abandoned interrupted tasks (ended, not deleted), expired
 * keys whose task is gone (into tombstones), old tombstones.
 */
import { abandonedTaskWrite } from '../abandon.js';
import type { Scope } from '../scope.js';
import type { BatchResult } from '../sql/purge-loop.js';
import { toBool, toStoredTask, type TaskRow } from '../sql/sql-rows.js';
import { commitPg, type PgCommitContext } from './pg-commit.js';
import type { PgPoolLike } from './pg-pool-like.js';
import type { PgStatements } from './pg-statements.js';
import type { PgTables } from './pg-tables.js';
import { inTransaction } from './pg-transaction.js';

/** The instants a purge compares against, all from the store's clock. */
export interface PgPurgeCutoffs {
  readonly now: number;
  readonly taskCutoff: number;
  /** Interrupted tasks last written at or before this are ended; null when the policy keeps them. */
  readonly abandonCutoff: number | null;
  readonly tombCutoff: number;
}

/** A task the batch deleted or ended, so local watchers can be woken. */
export interface PgTouchedTask extends Scope {
  readonly id: string;
}

/** Runs one batch. */
export function pgPurgeBatch(
  pool: PgPoolLike,
  sql: PgStatements,
  tables: PgTables,
  cut: PgPurgeCutoffs,
  limit: number,
): Promise<{ result: BatchResult; touched: PgTouchedTask[] }> {
  return inTransaction(pool, async (c) => {
    const removed = (await c.query(sql.purgeTasks, [cut.taskCutoff, limit])).rows.map(touchedOf);
    let left = limit - removed.length;
    const ended =
      left > 0 && cut.abandonCutoff !== null
        ? await endAbandoned({ c, sql, tables }, cut.abandonCutoff, cut.now, left)
        : [];
    left -= ended.length;
    const keys = left > 0 ? (await c.query(sql.expireKeys, [cut.now, left])).rows.length : 0;
    left -= keys;
    const tombstones =
      left > 0 ? (await c.query(sql.purgeTombstones, [cut.tombCutoff, left])).rows.length : 0;
    return {
      result: { tasks: removed.length, abandoned: ended.length, keys, tombstones },
      touched: [...removed, ...ended],
    };
  });
}

/**
 * Ends up to `limit` abandoned tasks with the shared write (abandon.ts), as a compare-and-set on the fence and seq
 * read. The select locked the rows (skipping any a writer holds), so a continuation racing the sweep either
 * committed first, and the row no longer qualified, or waits and then finds its fence stale.
 */
async function endAbandoned(
  ctx: PgCommitContext,
  cutoff: number,
  now: number,
  limit: number,
): Promise<PgTouchedTask[]> {
  const { rows } = await ctx.c.query(ctx.sql.selectAbandoned, [cutoff, limit]);
  const ended: PgTouchedTask[] = [];
  for (const row of rows) {
    const cur = toStoredTask(row as unknown as TaskRow);
    const end = abandonedTaskWrite(cur.task, now);
    const t = touchedOf(row);
    const write = {
      expectFence: cur.fence,
      expectSeq: cur.seq,
      nextFence: cur.fence + 1,
      task: end.task,
      events: [end.event],
    };
    if ((await commitPg(ctx, t, t.id, write, now)).ok) ended.push(t);
  }
  return ended;
}

function touchedOf(row: Record<string, unknown>): PgTouchedTask {
  return { tenant: String(row.tenant), owner: String(row.owner), id: String(row.id) };
}

/** Dates tombstones a build older than schema 2 wrote without `tombstoned_at`: their age starts now. */
export async function pgDateUndatedTombstones(
  pool: PgPoolLike,
  sql: PgStatements,
  now: number,
): Promise<void> {
  await pool.query(sql.dateUndatedTombstones, [now]);
}

/** Whether anything is still eligible. */
export async function pgPurgeRemains(
  pool: PgPoolLike,
  sql: PgStatements,
  cut: PgPurgeCutoffs,
): Promise<boolean> {
  const { rows } = await pool.query(sql.anyPurgeable, [
    cut.taskCutoff,
    cut.now,
    cut.tombCutoff,
    cut.abandonCutoff,
  ]);
  return toBool(rows[0]?.any);
}
