/**
 * PostgreSQL schema version 7 (ADR 0051): a task's events are deleted with it by a statement trigger on the tasks
 * table, not by a foreign key. Whoever deletes tasks (retention, a released claim, an operator, a replica of an
 * older build still running during a rolling upgrade) leaves no event behind, and a commit that races a delete
 * of its task appends nothing. Runs on the real server, or on PGlite where no server answers.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/store/clock.js';
import { PostgresTaskStore, type PgPoolLike } from '../../src/store/postgres/index.js';
import { pgLedger, pgMigrations } from '../../src/store/postgres/pg-schema.js';
import { pgTables, type PgTables } from '../../src/store/postgres/pg-tables.js';
import { ALICE, BOB, makeTask, statusEvent, withState } from '../store-contract/fixtures/tasks.js';
import { freshSchema, pgBackend } from '../store-contract/pg-backend.js';

const backend = await pgBackend();
const pools: PgPoolLike[] = [];
const schemas: string[] = [];
afterAll(async () => {
  const pool = backend.pool();
  for (const s of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
  await backend.end();
});

function freshPool(): PgPoolLike {
  const pool = backend.pool();
  pools.push(pool);
  return pool;
}

/** A store on a fresh schema, migrated to the newest version. */
async function freshStore(clock = new ManualClock()) {
  const schema = freshSchema();
  schemas.push(schema);
  const pool = freshPool();
  const store = new PostgresTaskStore({ pool, schema, clock, pollIntervalMs: 10 });
  await store.migrate();
  return { store, pool, t: pgTables(schema), clock };
}

async function eventCount(pool: PgPoolLike, t: PgTables, taskId: string): Promise<number> {
  const { rows } = await pool.query(`SELECT count(*)::int AS n FROM ${t.events} WHERE task_id = $1`, [
    taskId,
  ]);
  return Number(rows[0]!.n);
}

/** Creates `id` and appends two events to it. */
async function taskWithEvents(store: PostgresTaskStore, id: string, scope = ALICE) {
  const created = await store.createTask(scope, { task: makeTask(id) });
  if (created.outcome !== 'created') throw new Error('not created');
  const working = withState(created.record.task, 'TASK_STATE_WORKING');
  const done = withState(working, 'TASK_STATE_COMPLETED');
  const r = await store.commit(scope, id, {
    expectFence: 1,
    task: done,
    events: [statusEvent(working, 'TASK_STATE_WORKING'), statusEvent(done, 'TASK_STATE_COMPLETED')],
  });
  expect(r.ok).toBe(true);
}

describe(`PostgreSQL events go with their task by trigger (${backend.kind})`, () => {
  it('has no foreign key on events at version 7, and the trigger on tasks', async () => {
    const { pool, t } = await freshStore();
    const fks = await pool.query(
      `SELECT count(*)::int AS n FROM pg_constraint WHERE conrelid = '${t.events}'::regclass AND contype = 'f'`,
    );
    expect(Number(fks.rows[0]!.n)).toBe(0);
    const triggers = await pool.query(
      `SELECT tgname FROM pg_trigger WHERE tgrelid = '${t.tasks}'::regclass AND NOT tgisinternal`,
    );
    expect(triggers.rows.map((r) => r.tgname)).toEqual(['a2a_tasks_delete_events']);
  });

  it("a DELETE of tasks by anyone (an older build's purge, an operator) takes exactly their events", async () => {
    const { store, pool, t } = await freshStore();
    await taskWithEvents(store, 'gone-1');
    await taskWithEvents(store, 'gone-2');
    await taskWithEvents(store, 'kept');
    await taskWithEvents(store, 'gone-1', BOB); // same id, another scope: kept
    expect(await eventCount(pool, t, 'gone-1')).toBe(4);
    // As a build from before version 7 purges: it relied on the cascade, so it deletes the tasks only.
    await pool.query(
      `DELETE FROM ${t.tasks} WHERE tenant = $1 AND owner = $2 AND id IN ('gone-1', 'gone-2')`,
      [ALICE.tenant, ALICE.owner],
    );
    expect(await eventCount(pool, t, 'gone-1')).toBe(2); // BOB's
    expect(await eventCount(pool, t, 'gone-2')).toBe(0);
    expect(await eventCount(pool, t, 'kept')).toBe(2);
    expect(await store.readEvents(BOB, 'gone-1', 0)).toHaveLength(2);
  });

  it("retention's purge takes the purged tasks' events", async () => {
    const { store, pool, t, clock } = await freshStore();
    await taskWithEvents(store, 'old');
    clock.advance(10_000);
    await taskWithEvents(store, 'young');
    const purged = await store.purgeExpired({ terminalMaxAgeMs: 5_000, tombstoneMaxAgeMs: 5_000 });
    expect(purged.tasks).toBe(1);
    expect(await eventCount(pool, t, 'old')).toBe(0);
    expect(await eventCount(pool, t, 'young')).toBe(2);
  });

  // Needs two sessions at once: PGlite has one connection, on which the held transaction would block the commit.
  it.skipIf(backend.kind === 'pglite')(
    'a commit that waits on a delete of its task appends nothing once the delete commits',
    async () => {
      const { store, t } = await freshStore();
      await taskWithEvents(store, 'raced');
      const created = await store.createTask(ALICE, { task: makeTask('racing') });
      if (created.outcome !== 'created') throw new Error('not created');
      // Another session deletes the task and holds its row lock; the commit's compare-and-set waits for it.
      const other = await freshPool().connect();
      try {
        await other.query('BEGIN');
        await other.query(`DELETE FROM ${t.tasks} WHERE id = 'racing'`);
        const working = withState(created.record.task, 'TASK_STATE_WORKING');
        const commit = store.commit(ALICE, 'racing', {
          expectFence: 1,
          task: working,
          events: [statusEvent(working, 'TASK_STATE_WORKING')],
        });
        await new Promise((r) => setTimeout(r, 100));
        await other.query('COMMIT');
        expect(await commit).toEqual({ ok: false, current: undefined });
      } finally {
        other.release();
      }
      const pool = freshPool();
      expect(await eventCount(pool, t, 'racing')).toBe(0);
      expect(await eventCount(pool, t, 'raced')).toBe(2);
    },
  );

  it('upgrading a version-6 schema keeps its events and deletes them with their tasks from then on', async () => {
    const schema = freshSchema();
    schemas.push(schema);
    const t = pgTables(schema);
    const pool = freshPool();
    await pool.query(`CREATE SCHEMA ${t.quotedSchema}`);
    await pool.query(pgLedger(t));
    // Version 6, plus the write id column of version 8 that today's commits write (this build writes the tasks).
    for (const m of pgMigrations(t).filter((x) => x.version <= 6 || x.version === 8)) {
      for (const sql of m.statements) await pool.query(sql);
      await pool.query(`INSERT INTO ${t.migrations} VALUES ($1, $2, 0)`, [m.version, m.name]);
    }
    const clock = new ManualClock();
    const v6 = new PostgresTaskStore({ pool, schema, clock });
    await taskWithEvents(v6, 'before');
    await v6.close();
    const store = new PostgresTaskStore({ pool, schema, clock });
    expect((await store.migrate()).applied).toEqual([7, 9]);
    expect(await store.readEvents(ALICE, 'before', 0)).toHaveLength(2);
    await pool.query(`DELETE FROM ${t.tasks} WHERE id = 'before'`);
    expect(await eventCount(pool, t, 'before')).toBe(0);
    await store.close();
  });
});
