/**
 * The queries that must not scan a whole table as it grows (ADR 0027, ADR 0028) can use the indexes of migration
 * 2: the abandoned phase of retention, the tombstone phase, the per-scope live key count of the cap, and the
 * cap's expiry of a scope's keys. SQLite's plan is read as is. PostgreSQL plans by statistics, so its tables get
 * rows shaped like a busy store's (many scopes, mostly tombstones, mostly finished tasks) and are analysed first.
 */
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresTaskStore, type PgPoolLike } from '../../src/store/postgres/index.js';
import { pgStatements } from '../../src/store/postgres/pg-statements.js';
import { pgTables, type PgTables } from '../../src/store/postgres/pg-tables.js';
import { SqliteTaskStore } from '../../src/store/sqlite/index.js';
import { SQL } from '../../src/store/sqlite/sqlite-statements.js';
import { freshSchema, pgBackend, type PgBackend } from '../store-contract/pg-backend.js';

const CASES = [
  {
    name: 'retention phase',
    sqlite: SQL.purgeTasks,
    pg: 'purgeTasks',
    index: 'a2a_tasks_retention',
  },
  {
    name: 'abandoned phase',
    sqlite: SQL.selectAbandoned,
    pg: 'selectAbandoned',
    index: 'a2a_tasks_interrupted',
  },
  {
    name: 'tombstone phase',
    sqlite: SQL.purgeTombstones,
    pg: 'purgeTombstones',
    index: 'a2a_keys_tombstone_age',
  },
  {
    name: 'live key count',
    sqlite: SQL.countScopeLiveKeys,
    pg: 'countScopeLiveKeys',
    index: 'a2a_keys_scope_live',
  },
  {
    name: 'expiry at the cap',
    sqlite: SQL.expireScopeKeys,
    pg: 'expireScopeKeys',
    index: 'a2a_keys_scope_live',
  },
] as const;

describe('SQLite query plans', () => {
  it.each(CASES)('the $name uses $index', async ({ sqlite, index }) => {
    const db = new BetterSqlite3(':memory:');
    const store = new SqliteTaskStore({ database: db });
    await store.migrate();
    const params = { tenant: 'acme', owner: 'alice', now: 1, cutoff: 1, limit: 10 };
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sqlite}`).all(params) as { detail: string }[])
      .map((r) => r.detail)
      .join('\n');
    expect(plan).toContain(index);
    // The only full scans allowed are none of the two big tables.
    expect(plan).not.toMatch(/SCAN a2a_(tasks|keys)\b(?! USING)/);
    await store.close();
    db.close();
  });
});

/**
 * A fresh schema, migrated and filled by `seed` before the describe's tests and dropped after them. The returned
 * function gives the pool inside a test.
 */
function useMigratedSchema(t: PgTables, seed: (pool: PgPoolLike) => Promise<void>): () => PgPoolLike {
  let backend: PgBackend;
  let pool: PgPoolLike;
  beforeAll(async () => {
    backend = await pgBackend();
    pool = backend.pool();
    await new PostgresTaskStore({ pool, schema: t.schema }).migrate();
    await seed(pool);
  });
  afterAll(async () => {
    await pool.query(`DROP SCHEMA ${t.quotedSchema} CASCADE`);
    await backend.end();
  });
  return () => pool;
}

describe('PostgreSQL query plans', () => {
  const t = pgTables(freshSchema());
  const db = useMigratedSchema(t, async (pool) => {
    await pool.query(`INSERT INTO ${t.keys}
        (tenant, owner, key, message_id, digest, task_id, created_at, expires_at, tombstone, tombstoned_at)
      SELECT 'acme', 'owner-' || (i % 50), 'key-' || i, 'm', 'd', 't' || i, 0, i, i % 20 <> 0,
        CASE WHEN i % 20 <> 0 THEN i END
      FROM generate_series(1, 20000) AS i`);
    await pool.query(`INSERT INTO ${t.tasks} (tenant, owner, id, kind, task, fence, seq, status_state, status_ts,
        terminal, created_at, updated_at)
      SELECT 'acme', 'owner-' || (i % 50), 't' || i, 'task', '{}', 1, 1,
        CASE WHEN i % 50 = 0 THEN 'TASK_STATE_INPUT_REQUIRED' ELSE 'TASK_STATE_COMPLETED' END, '', i % 50 <> 0, i, i
      FROM generate_series(1, 20000) AS i`);
    await pool.query(`ANALYZE ${t.keys}`);
    await pool.query(`ANALYZE ${t.tasks}`);
  });

  const params = {
    purgeTasks: [1, 10],
    selectAbandoned: [1, 10],
    purgeTombstones: [1, 10],
    countScopeLiveKeys: ['acme', 'owner-7'],
    expireScopeKeys: ['acme', 'owner-7', 1, 10],
  } as const;

  it.each(CASES)('the $name uses $index', async ({ pg, index }) => {
    const text = pgStatements(t)[pg];
    const plan = (await db().query(`EXPLAIN ${text}`, [...params[pg]])).rows
      .map((r) => String(r['QUERY PLAN']))
      .join('\n');
    expect(plan).toContain(index);
  });
});

// Regression: before a table's first ANALYZE (a new deployment's first minute, every fresh bench schema), the
// planner could not tell ListTasks' indexes, which then led with (tenant, owner) and ended in id, from the primary
// key, and served lookups by id from them: a scan of the whole scope for every commit and read of a task.
describe('PostgreSQL task lookups before any ANALYZE', () => {
  const t = pgTables(freshSchema());
  // One busy scope, as a single-tenant deployment has; no ANALYZE.
  const db = useMigratedSchema(t, async (pool) => {
    await pool.query(`INSERT INTO ${t.tasks} (tenant, owner, id, kind, task, fence, seq, status_state, status_ts,
        context_id, terminal, created_at, updated_at)
      SELECT '', 'anon', 't' || i, 'task', '{}', 1, 1, 'TASK_STATE_WORKING', 'ts' || i, 'c' || i, false, i, i
      FROM generate_series(1, 3000) AS i`);
  });

  const commitArgs = [
    '',
    'anon',
    't7',
    '{}',
    null,
    null,
    0,
    'S',
    '',
    null,
    false,
    0,
    1,
    null,
    false,
    null,
    null,
    null,
    [],
  ];
  it.each([
    ['selectTask', ['', 'anon', 't7']],
    ['taskSeq', ['', 'anon', 't7']],
    ['commitTask', commitArgs],
  ] as const)('%s uses the primary key', async (name, args) => {
    const plan = (await db().query(`EXPLAIN ${pgStatements(t)[name]}`, [...args])).rows
      .map((r) => String(r['QUERY PLAN']))
      .join('\n');
    expect(plan).toContain('a2a_tasks_pkey');
    expect(plan).not.toMatch(/a2a_tasks_(list|context)/);
  });
});
