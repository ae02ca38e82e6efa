/**
 * PostgreSQL: a step recorded under the old fence is never committed AFTER a takeover (ADR 0036). The new worker
 * reads the steps right after its takeover and runs every one it does not find, so a record that landed later
 * would let a step's effect happen twice. The record's fence check takes the task's row FOR SHARE, which makes a
 * takeover wait for a record in progress. The window is held open for real: another connection keeps an
 * uncommitted insert of the same step, so the record waits on it after its fence check while the takeover runs.
 * Needs a real server (PGlite has one session, which the open transaction would hold).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/store/clock.js';
import { PostgresTaskStore, type PgPoolLike } from '../../src/store/postgres/index.js';
import { pgTables } from '../../src/store/postgres/pg-tables.js';
import { ALICE, makeTask } from '../store-contract/fixtures/tasks.js';
import { freshSchema, pgBackend, type PgBackend } from '../store-contract/pg-backend.js';

const backend: PgBackend = await pgBackend();
afterAll(() => backend.end());

/** Resolves once `n` backends running statements on `schema` wait for a lock (other tests' waits do not count). */
async function lockWaiters(pool: PgPoolLike, schema: string, n: number): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const { rows } = await pool.query(
      `SELECT count(*) AS n FROM pg_stat_activity
       WHERE datname = current_database() AND wait_event_type = 'Lock' AND position($1 in query) > 0`,
      [schema],
    );
    if (Number(rows[0]?.n) >= n) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`fewer than ${n} statements on ${schema} ever waited for a lock`);
}

describe.skipIf(backend.kind !== 'server')('PostgreSQL recordStep against a takeover', () => {
  const schema = freshSchema();
  const t = pgTables(schema);
  let pool: PgPoolLike;
  let store: PostgresTaskStore;
  beforeAll(async () => {
    pool = backend.pool();
    store = new PostgresTaskStore({ pool, schema, clock: new ManualClock() });
    await store.migrate();
  });
  afterAll(async () => {
    await pool.query(`DROP SCHEMA ${t.quotedSchema} CASCADE`);
  });

  it('a takeover waits for a record past its fence check; the step is visible once the takeover is in', async () => {
    const task = makeTask('t1');
    await store.createTask(ALICE, { task });
    const blocker = new pg.Client({ connectionString: backend.url });
    await blocker.connect();
    try {
      // An uncommitted insert of the same step: the record below passes its fence check, then waits here.
      await blocker.query('BEGIN');
      await blocker.query(
        `INSERT INTO ${t.steps} (tenant, owner, task_id, name, result, fence, recorded_at)
         VALUES ($1, $2, 't1', 'charge', '"blocker"', 1, 0)`,
        [ALICE.tenant, ALICE.owner],
      );
      const record = store.recordStep(ALICE, 't1', { name: 'charge', fence: 1, result: 'old worker' });
      await lockWaiters(pool, schema, 1);
      let takenOverAt: number | undefined;
      const takeover = store
        .commit(ALICE, 't1', { expectFence: 1, nextFence: 2, task, events: [] })
        .then(async (r) => {
          takenOverAt = Date.now();
          // What the new worker reads right after its takeover.
          return { r, seen: await store.getStep(ALICE, 't1', 'charge') };
        });
      // The takeover queues behind the record's share lock (without it, it would commit here, too early).
      await lockWaiters(pool, schema, 2);
      expect(takenOverAt).toBeUndefined();
      await blocker.query('ROLLBACK');

      const recorded = await record;
      const { r, seen } = await takeover;
      expect(r.ok).toBe(true);
      expect(recorded).toMatchObject({ outcome: 'recorded', step: { result: 'old worker', fence: 1 } });
      expect(seen).toEqual(recorded.outcome === 'recorded' ? recorded.step : undefined);
    } finally {
      await blocker.end();
    }
  });
});
