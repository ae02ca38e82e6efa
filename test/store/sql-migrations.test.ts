/** Migrations of the SQL stores: applied once under concurrency, refused when the database is newer. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresTaskStore } from '../../src/store/postgres/index.js';
import { SqliteTaskStore } from '../../src/store/sqlite/index.js';
import { freshSchema, pgBackend } from '../store-contract/pg-backend.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-mig-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SQLite migrations', () => {
  it('apply once when several connections migrate one file', async () => {
    const path = join(dir, 'm.db');
    const stores = Array.from({ length: 4 }, () => new SqliteTaskStore({ path }));
    const reports = await Promise.all(stores.map((s) => s.migrate()));
    expect(reports.flatMap((r) => r.applied)).toEqual([1]);
    const db = new BetterSqlite3(path);
    expect(db.prepare('SELECT version FROM a2a_migrations').all()).toEqual([{ version: 1 }]);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
    for (const s of stores) await s.close();
  });

  it('refuse a database migrated by a newer a2a-once', async () => {
    const path = join(dir, 'new.db');
    const store = new SqliteTaskStore({ path });
    await store.migrate();
    const db = new BetterSqlite3(path);
    db.prepare("INSERT INTO a2a_migrations VALUES (99, 'future', 0)").run();
    db.close();
    await expect(store.migrate()).rejects.toMatchObject({ code: 'SCHEMA_TOO_NEW' });
    await store.close();
  });

  it('works on a database handle the caller owns, and leaves it open', async () => {
    const db = new BetterSqlite3(':memory:');
    const store = new SqliteTaskStore({ database: db });
    await store.migrate();
    await store.close();
    expect(db.open).toBe(true);
    db.close();
  });
});

describe('PostgreSQL migrations', () => {
  it('apply once when several pools migrate one schema at the same time (advisory lock)', async () => {
    const backend = await pgBackend();
    const schema = freshSchema();
    try {
      const stores = Array.from({ length: 4 }, () => new PostgresTaskStore({ pool: backend.pool(), schema }));
      const reports = await Promise.all(stores.map((s) => s.migrate()));
      expect(reports.flatMap((r) => r.applied)).toEqual([1]);
      const pool = backend.pool();
      await pool.query(`INSERT INTO "${schema}".a2a_migrations VALUES (99, 'future', 0)`);
      await expect(stores[0]!.migrate()).rejects.toMatchObject({ code: 'SCHEMA_TOO_NEW' });
      await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    } finally {
      await backend.end();
    }
  });

  it('refuses a schema name that is not a plain identifier', () => {
    const pool = {
      query: () => Promise.resolve({ rows: [] }),
      connect: () => Promise.reject(new Error('unused')),
    };
    expect(() => new PostgresTaskStore({ pool, schema: 'x"; DROP TABLE y; --' })).toThrow(/plain identifier/);
  });
});
