/**
 * Migration 3 of the SQL stores (ADR 0036): a database written at version 2 gains the worker-lease columns and
 * the steps table. Tasks written before it have no lease (they are never listed as lapsed: nobody knows a worker
 * ran them), keep everything else, and take leases and steps like any task afterwards; their steps cascade.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { Task } from '../../src/protocol/model.js';
import { ManualClock } from '../../src/store/clock.js';
import { PostgresTaskStore, type PgPoolLike } from '../../src/store/postgres/index.js';
import { pgLedger, pgMigrations } from '../../src/store/postgres/pg-schema.js';
import { pgTables } from '../../src/store/postgres/pg-tables.js';
import { SQLITE_LEDGER } from '../../src/store/sqlite/sqlite-schema.js';
import { SQLITE_MIGRATIONS, SqliteTaskStore } from '../../src/store/sqlite/index.js';
import type { TaskStore } from '../../src/store/task-store.js';
import { ALICE, DAY, makeTask, statusEvent, withState } from '../store-contract/fixtures/tasks.js';
import { freshSchema, pgBackend } from '../store-contract/pg-backend.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-mig3-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** A task row as a version 2 build wrote it: fence 2, seq 3, WORKING, no lease columns. */
const OLD = withState(makeTask('old'), 'TASK_STATE_WORKING');
const OLD_ROW = [ALICE.tenant, ALICE.owner, 'old', JSON.stringify(OLD), OLD.status.state, 1000] as const;

/** A database of one backend at version 2 holding the task `OLD`, opened as a store afterwards. */
interface V2Database {
  open(clock: ManualClock): TaskStore & { migrate(): Promise<{ applied: readonly number[] }> };
  /** Whether the lapsed-lease index exists. */
  hasLeaseIndex(): Promise<boolean>;
  cleanup(): Promise<void>;
}

function sqliteAtV2(): V2Database {
  const path = join(dir, `v2-${++files}.db`);
  const db = new BetterSqlite3(path);
  db.exec(SQLITE_LEDGER);
  for (const m of SQLITE_MIGRATIONS.filter((x) => x.version <= 2)) {
    for (const sql of m.statements) db.exec(sql);
    db.prepare('INSERT INTO a2a_migrations VALUES (?, ?, 0)').run(m.version, m.name);
  }
  db.prepare(
    `INSERT INTO a2a_tasks (tenant, owner, id, kind, task, fence, seq, status_state, status_ts, terminal,
       created_at, updated_at) VALUES (?, ?, ?, 'task', ?, 2, 3, ?, '', 0, ?, 1000)`,
  ).run(...OLD_ROW);
  const stores: SqliteTaskStore[] = [];
  return {
    open: (clock) => {
      const store = new SqliteTaskStore({ path, clock });
      stores.push(store);
      return store;
    },
    hasLeaseIndex: () =>
      Promise.resolve(
        db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'a2a_tasks_lease'").get() !==
          undefined,
      ),
    cleanup: async () => {
      for (const s of stores) await s.close();
      db.close();
    },
  };
}

async function postgresAtV2(): Promise<V2Database> {
  const backend = await pgBackend();
  const pool: PgPoolLike = backend.pool();
  const schema = freshSchema();
  const t = pgTables(schema);
  await pool.query(`CREATE SCHEMA ${t.quotedSchema}`);
  await pool.query(pgLedger(t));
  for (const m of pgMigrations(t).filter((x) => x.version <= 2)) {
    for (const sql of m.statements) await pool.query(sql);
    await pool.query(`INSERT INTO ${t.migrations} VALUES ($1, $2, 0)`, [m.version, m.name]);
  }
  await pool.query(
    `INSERT INTO ${t.tasks} (tenant, owner, id, kind, task, fence, seq, status_state, status_ts, terminal,
       created_at, updated_at) VALUES ($1, $2, $3, 'task', $4, 2, 3, $5, '', FALSE, $6, 1000)`,
    [...OLD_ROW],
  );
  return {
    open: (clock) => new PostgresTaskStore({ pool, schema, clock }),
    hasLeaseIndex: async () =>
      (
        await pool.query(`SELECT 1 FROM pg_indexes WHERE schemaname = $1 AND indexname = 'a2a_tasks_lease'`, [
          schema,
        ])
      ).rows.length === 1,
    cleanup: async () => {
      await pool.query(`DROP SCHEMA ${t.quotedSchema} CASCADE`);
      await backend.end();
    },
  };
}

describe.each([
  ['SQLite', () => Promise.resolve(sqliteAtV2())],
  ['PostgreSQL', postgresAtV2],
] as const)('%s: migrating from version 2', (name, at) => {
  it('adds leases, steps and parent renewals; an old task keeps its state, has no lease, then takes both', async () => {
    const db = await at();
    try {
      const clock = new ManualClock();
      const store = db.open(clock);
      expect((await store.migrate()).applied).toEqual(
        name === 'PostgreSQL' ? [3, 4, 5, 6, 7, 8, 9] : [3, 4, 5, 6, 7, 8],
      );
      expect(await db.hasLeaseIndex()).toBe(true);
      const before = await store.getTask(ALICE, 'old');
      expect(before).toEqual({ task: OLD, kind: 'task', fence: 2, seq: 3, createdAt: 1000, updatedAt: 1000 });
      expect(before).not.toHaveProperty('lease');
      // A WORKING task from before has no lease, so it is never mistaken for a lost worker's.
      clock.advance(DAY);
      expect(await store.findLapsedLeases(10)).toEqual([]);
      expect(await store.renewLease(ALICE, 'old', 2, 'anyone', 1000)).toBe(false);

      const leased = await store.commit(ALICE, 'old', {
        expectFence: 2,
        task: OLD,
        events: [],
        lease: { owner: 'w', ttlMs: 1000 },
      });
      expect(leased).toMatchObject({
        ok: true,
        record: { lease: { owner: 'w', expiresAt: clock.now() + 1000 } },
      });
      clock.advance(1000);
      expect(await store.findLapsedLeases(10)).toEqual([
        {
          ...ALICE,
          taskId: 'old',
          fence: 2,
          lease: { owner: 'w', expiresAt: clock.now() },
          record: await store.getTask(ALICE, 'old'),
        },
      ]);

      // Version 4: a task from before has no parent renewal until its parent first renews it.
      expect(await store.lastParentRenewal(ALICE, 'old')).toBeUndefined();
      expect(await store.recordParentRenewal(ALICE, 'old')).toBe(true);
      expect(await store.lastParentRenewal(ALICE, 'old')).toBe(clock.now());

      const r = await store.recordStep(ALICE, 'old', { name: 's', fence: 2, result: { ok: true } });
      expect(r).toMatchObject({ outcome: 'recorded', step: { result: { ok: true } } });
      const done = withState(OLD, 'TASK_STATE_COMPLETED');
      await store.commit(ALICE, 'old', {
        expectFence: 2,
        task: done,
        events: [statusEvent(OLD, 'TASK_STATE_COMPLETED')],
        lease: null,
      });
      clock.advance(2 * DAY);
      expect((await store.purgeExpired({ terminalMaxAgeMs: DAY })).tasks).toBe(1);
      expect(await store.getStep(ALICE, 'old', 's')).toBeUndefined();
      const again: Task = makeTask('old');
      await store.createTask(ALICE, { task: again });
      expect(await store.getStep(ALICE, 'old', 's')).toBeUndefined();
      // A second migrate finds nothing to do.
      expect((await store.migrate()).applied).toEqual([]);
    } finally {
      await db.cleanup();
    }
  });
});
