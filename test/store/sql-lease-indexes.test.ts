/**
 * The queries of worker leases and durable steps (ADR 0036) are served by indexes: recovery's lapsed-lease list
 * reads the partial index a2a_tasks_lease in order (no scan of the tasks, no sort), renewals and steps go by
 * primary key. SQLite's plan is read as is; PostgreSQL plans by statistics, so its tables get rows shaped like a
 * busy store's (mostly finished tasks, a few running ones holding leases) and are analysed first.
 */
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresTaskStore, type PgPoolLike } from '../../src/store/postgres/index.js';
import { pgStatements } from '../../src/store/postgres/pg-statements.js';
import { pgTables } from '../../src/store/postgres/pg-tables.js';
import { pgMigrations } from '../../src/store/postgres/pg-schema.js';
import { RUNNING_STATES_SQL } from '../../src/store/sql/sql-rows.js';
import { SqliteTaskStore } from '../../src/store/sqlite/index.js';
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite/sqlite-schema.js';
import { SQL } from '../../src/store/sqlite/sqlite-statements.js';
import { freshSchema, pgBackend, type PgBackend } from '../store-contract/pg-backend.js';

describe('the lapsed-lease index predicate', () => {
  it('is the one the queries use: the running states, exactly as the migrations wrote them', () => {
    expect(RUNNING_STATES_SQL).toBe("('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING')");
    const sqlite = SQLITE_MIGRATIONS.find((m) => m.version === 3)?.statements.join('\n') ?? '';
    const pg =
      pgMigrations(pgTables('public'))
        .find((m) => m.version === 3)
        ?.statements.join('\n') ?? '';
    for (const ddl of [sqlite, pg]) expect(ddl).toContain(`status_state IN ${RUNNING_STATES_SQL}`);
  });
});

describe('SQLite query plans of leases and steps', () => {
  const cases = [
    { name: 'lapsed-lease list', sql: SQL.findLapsedLeases, index: 'USING INDEX a2a_tasks_lease' },
    { name: 'lease renewal', sql: SQL.renewLease, index: 'USING INDEX sqlite_autoindex_a2a_tasks_1' },
    { name: 'step lookup', sql: SQL.selectStep, index: 'USING PRIMARY KEY' },
  ];
  it.each(cases)('the $name is served by an index', async ({ sql, index }) => {
    const db = new BetterSqlite3(':memory:');
    const store = new SqliteTaskStore({ database: db });
    await store.migrate();
    const params = {
      tenant: 'acme',
      owner: 'alice',
      taskId: 't1',
      name: 's',
      fence: 1,
      leaseOwner: 'w',
      expiresAt: 1,
      now: 1,
      limit: 10,
    };
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[])
      .map((r) => r.detail)
      .join('\n');
    expect(plan).toContain(index);
    expect(plan).not.toMatch(/SCAN a2a_(tasks|steps)\b(?! USING)/);
    // Read in index order: no sort step.
    expect(plan).not.toContain('TEMP B-TREE');
    await store.close();
    db.close();
  });
});

describe('PostgreSQL query plans of leases and steps', () => {
  let backend: PgBackend;
  let pool: PgPoolLike;
  const schema = freshSchema();
  const t = pgTables(schema);
  beforeAll(async () => {
    backend = await pgBackend();
    pool = backend.pool();
    await new PostgresTaskStore({ pool, schema }).migrate();
    // 20,000 tasks: one in 100 running with a lease, the rest finished (some keeping a stale lease).
    await pool.query(`INSERT INTO ${t.tasks} (tenant, owner, id, kind, task, fence, seq, status_state, status_ts,
        terminal, created_at, updated_at, lease_owner, lease_expires_at)
      SELECT 'acme', 'owner-' || (i % 50), 't' || i, 'task', '{}', 1, 1,
        CASE WHEN i % 100 = 0 THEN 'TASK_STATE_WORKING' ELSE 'TASK_STATE_COMPLETED' END, '', i % 100 <> 0, i, i,
        CASE WHEN i % 10 = 0 THEN 'w' || i END, CASE WHEN i % 10 = 0 THEN i END
      FROM generate_series(1, 20000) AS i`);
    await pool.query(`INSERT INTO ${t.steps} (tenant, owner, task_id, name, result, fence, recorded_at)
      SELECT 'acme', 'owner-' || (i % 50), 't' || i, 'step-' || j, '1', 1, i
      FROM generate_series(1, 20000) AS i, generate_series(1, 3) AS j`);
    await pool.query(`ANALYZE ${t.tasks}`);
    await pool.query(`ANALYZE ${t.steps}`);
  });
  afterAll(async () => {
    await pool.query(`DROP SCHEMA ${t.quotedSchema} CASCADE`);
    await backend.end();
  });

  const cases = [
    { name: 'lapsed-lease list', pg: 'findLapsedLeases', args: [15_000, 10], index: 'a2a_tasks_lease' },
    {
      name: 'lease renewal',
      pg: 'renewLease',
      args: ['acme', 'owner-0', 't100', 1, 'w100', 1],
      index: 'a2a_tasks_pkey',
    },
    {
      name: 'step lookup',
      pg: 'selectStep',
      args: ['acme', 'owner-0', 't100', 'step-1'],
      index: 'a2a_steps_pkey',
    },
    {
      name: 'step record',
      pg: 'recordStep',
      args: ['acme', 'owner-0', 't100', 1, 'step-9', '1', 1],
      index: 'a2a_tasks_pkey',
    },
  ] as const;

  it.each(cases)('the $name is served by $index', async ({ pg, args, index }) => {
    const plan = (await pool.query(`EXPLAIN ${pgStatements(t)[pg]}`, [...args])).rows
      .map((r) => String(r['QUERY PLAN']))
      .join('\n');
    expect(plan).toContain(index);
    expect(plan).not.toMatch(/Seq Scan on a2a_(tasks|steps)/);
    expect(plan).not.toMatch(/\bSort\b/);
  });
});
