/**
 * `/readyz` says "not ready" while the store's schema is behind this code (ADR 0089): a replica started with new
 * code before `a2a-once migrate` ran. `schemaStatus()` reads where the schema stands without changing it, on
 * SQLite and PostgreSQL: 0 before any migration, one short of the newest after all but the last, the newest after
 * `migrate()`; and readiness follows it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createA2AServer } from '../../../src/server/create-server.js';
import { silentLogger } from '../../../src/server/observability/logger.js';
import { latestVersion } from '../../../src/store/sql/migration.js';
import { SQLITE_LEDGER, SQLITE_MIGRATIONS } from '../../../src/store/sqlite/sqlite-schema.js';
import { SqliteTaskStore } from '../../../src/store/sqlite/index.js';
import { PostgresTaskStore } from '../../../src/store/postgres/index.js';
import { pgMigrations, pgLedger } from '../../../src/store/postgres/pg-schema.js';
import { pgTables } from '../../../src/store/postgres/pg-tables.js';
import type { TaskStore } from '../../../src/store/task-store.js';
import { freshSchema, pgBackend, type PgBackend } from '../../store-contract/pg-backend.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-ready-schema-'));
let pg: PgBackend;
beforeAll(async () => {
  pg = await pgBackend();
});
afterAll(async () => {
  await pg.end();
  rmSync(dir, { recursive: true, force: true });
});

async function readyz(
  store: TaskStore,
): Promise<{ status: number; body: { checks: Record<string, { ok: boolean; detail?: string }> } }> {
  const server = createA2AServer({
    card: { name: 'r', description: 'readiness' },
    agent: { execute: (ctx) => ctx.complete() },
    store,
    logger: silentLogger,
    recovery: false,
    retention: false,
  });
  try {
    const res = await server.fetch(new Request('http://localhost/readyz'));
    return { status: res.status, body: (await res.json()) as never };
  } finally {
    await server.close({ graceMs: 0 });
  }
}

describe('a SQLite file one migration behind', () => {
  it('reads its version, is not ready, and is ready once migrated', async () => {
    const path = join(dir, 'behind.db');
    const db = new BetterSqlite3(path);
    db.exec(SQLITE_LEDGER);
    const latest = latestVersion(SQLITE_MIGRATIONS);
    for (const m of SQLITE_MIGRATIONS.filter((x) => x.version < latest)) {
      for (const sql of m.statements) db.exec(sql);
      for (const sql of m.atMigrationTime ?? []) db.prepare(sql).run({ now: Date.now() });
      db.prepare('INSERT INTO a2a_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        m.version,
        m.name,
        0,
      );
    }
    db.close();
    expect(await new SqliteTaskStore({ path: join(dir, 'empty.db') }).schemaStatus()).toEqual({
      version: 0,
      latest,
    });

    const behind = await readyz(new SqliteTaskStore({ path }));
    expect(behind.status).toBe(503);
    expect(behind.body.checks.schema).toEqual({
      ok: false,
      detail: `schema version ${latest - 1}, this a2a-once needs ${latest}: run a2a-once migrate`,
    });
    const store = new SqliteTaskStore({ path });
    await store.migrate();
    expect(await store.schemaStatus()).toEqual({ version: latest, latest });
    const ready = await readyz(store);
    expect(ready.status).toBe(200);
    expect(ready.body.checks.schema).toEqual({ ok: true });
  });
});

describe('a PostgreSQL schema one migration behind', () => {
  it('reads its version, is not ready, and is ready once migrated', async () => {
    const schema = freshSchema();
    const pool = pg.pool();
    const t = pgTables(schema);
    const migrations = pgMigrations(t);
    const latest = latestVersion(migrations);
    expect(await new PostgresTaskStore({ pool, schema }).schemaStatus()).toEqual({ version: 0, latest });
    await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await pool.query(pgLedger(t));
    for (const m of migrations.filter((x) => x.version < latest)) {
      for (const sql of m.statements) await pool.query(sql);
      for (const sql of m.atMigrationTime ?? []) await pool.query(sql, [Date.now()]);
      await pool.query(`INSERT INTO ${t.migrations} (version, name, applied_at) VALUES ($1, $2, $3)`, [
        m.version,
        m.name,
        0,
      ]);
    }
    const behind = await readyz(new PostgresTaskStore({ pool: pg.pool(), schema }));
    expect(behind.status).toBe(503);
    expect(behind.body.checks.schema?.detail).toBe(
      `schema version ${latest - 1}, this a2a-once needs ${latest}: run a2a-once migrate`,
    );
    const store = new PostgresTaskStore({ pool: pg.pool(), schema });
    await store.migrate();
    const ready = await readyz(store);
    expect(ready.status).toBe(200);
    expect(ready.body.checks.schema).toEqual({ ok: true });
  });
});
