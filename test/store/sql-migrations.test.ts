/**
 * Migrations of the SQL stores: applied once under concurrency, refused when the database is newer, and version 2
 * (ADR 0027) dating the tombstones version 1 left behind at the migration, so none loses any of its TTL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/store/clock.js';
import { PostgresTaskStore, type PgPoolLike } from '../../src/store/postgres/index.js';
import { pgLedger, pgMigrations } from '../../src/store/postgres/pg-schema.js';
import { pgTables } from '../../src/store/postgres/pg-tables.js';
import { SQLITE_LEDGER } from '../../src/store/sqlite/sqlite-schema.js';
import { SQLITE_MIGRATIONS, SqliteTaskStore } from '../../src/store/sqlite/index.js';
import type { TaskStore } from '../../src/store/task-store.js';
import { ALICE, DAY, keyOf } from '../store-contract/fixtures/tasks.js';
import { freshSchema, pgBackend } from '../store-contract/pg-backend.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-mig-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const WEEK = 7 * DAY;
let files = 0;

/** A key row as an older build wrote it: `tombstoned_at` absent (version 1) or NULL (an old build on version 2). */
interface OldKeyRow {
  key: string;
  expiresAt: number;
  tombstone: boolean;
}

/** A database of one backend, first at version `version`, then opened as a store on `clock`. */
interface OldDatabase {
  insertKey(row: OldKeyRow): Promise<void>;
  open(clock: ManualClock): Promise<TaskStore & { migrate(): Promise<{ applied: readonly number[] }> }>;
  cleanup(): Promise<void>;
}

function sqliteAt(version: 1 | 2): Promise<OldDatabase> {
  const path = join(dir, `old-${++files}.db`);
  const db = new BetterSqlite3(path);
  db.exec(SQLITE_LEDGER);
  for (const m of SQLITE_MIGRATIONS.filter((x) => x.version <= version)) {
    for (const sql of m.statements) db.exec(sql);
    db.prepare('INSERT INTO a2a_migrations VALUES (?, ?, 0)').run(m.version, m.name);
  }
  const stores: SqliteTaskStore[] = [];
  return Promise.resolve({
    insertKey: (r) => {
      db.prepare(
        `INSERT INTO a2a_keys (tenant, owner, key, message_id, digest, task_id, created_at, expires_at, tombstone)
         VALUES (?, ?, ?, 'm', 'd', 'gone', 0, ?, ?)`,
      ).run(ALICE.tenant, ALICE.owner, r.key, r.expiresAt, r.tombstone ? 1 : 0);
      return Promise.resolve();
    },
    open: (clock) => {
      const store = new SqliteTaskStore({ path, clock });
      stores.push(store);
      return Promise.resolve(store);
    },
    cleanup: async () => {
      for (const s of stores) await s.close();
      db.close();
    },
  });
}

async function postgresAt(version: 1 | 2): Promise<OldDatabase> {
  const backend = await pgBackend();
  const pool: PgPoolLike = backend.pool();
  const schema = freshSchema();
  const t = pgTables(schema);
  await pool.query(`CREATE SCHEMA ${t.quotedSchema}`);
  await pool.query(pgLedger(t));
  for (const m of pgMigrations(t).filter((x) => x.version <= version)) {
    for (const sql of m.statements) await pool.query(sql);
    await pool.query(`INSERT INTO ${t.migrations} VALUES ($1, $2, 0)`, [m.version, m.name]);
  }
  return {
    insertKey: async (r) => {
      await pool.query(
        `INSERT INTO ${t.keys} (tenant, owner, key, message_id, digest, task_id, created_at, expires_at, tombstone)
         VALUES ($1, $2, $3, 'm', 'd', 'gone', 0, $4, $5)`,
        [ALICE.tenant, ALICE.owner, r.key, r.expiresAt, r.tombstone],
      );
    },
    open: (clock) => Promise.resolve(new PostgresTaskStore({ pool, schema, clock })),
    cleanup: async () => {
      await pool.query(`DROP SCHEMA ${t.quotedSchema} CASCADE`);
      await backend.end();
    },
  };
}

/** The schema versions of each backend: PostgreSQL's version 7 has no SQLite counterpart (ADR 0051). */
const VERSIONS = { SQLite: [1, 2, 3, 4, 5, 6, 7, 8], PostgreSQL: [1, 2, 3, 4, 5, 6, 7, 8, 9] } as const;

/** The versions a migration from `from` applies, in order. */
function versionsAfter(backend: keyof typeof VERSIONS, from: number): number[] {
  return VERSIONS[backend].filter((v) => v > from);
}

describe('SQLite migrations', () => {
  it('apply once when several connections migrate one file', async () => {
    const path = join(dir, 'm.db');
    const stores = Array.from({ length: 4 }, () => new SqliteTaskStore({ path }));
    const reports = await Promise.all(stores.map((s) => s.migrate()));
    expect(reports.flatMap((r) => r.applied)).toEqual(VERSIONS.SQLite);
    const db = new BetterSqlite3(path);
    expect(db.prepare('SELECT version FROM a2a_migrations ORDER BY version').all()).toEqual([
      { version: 1 },
      { version: 2 },
      { version: 3 },
      { version: 4 },
      { version: 5 },
      { version: 6 },
      { version: 7 },
      { version: 8 },
    ]);
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
      expect(reports.flatMap((r) => r.applied)).toEqual(VERSIONS.PostgreSQL);
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

describe.each([
  ['SQLite', sqliteAt],
  ['PostgreSQL', postgresAt],
] as const)('%s: tombstones from before version 2', (name, at) => {
  it('are dated at the migration and live one whole TTL from it; live keys stay undated', async () => {
    const old = await at(1);
    try {
      // Version 1 aged this tombstone from expires_at: it would have been deleted a week after day 0.
      await old.insertKey({ key: keyOf('tomb'), expiresAt: 0, tombstone: true });
      await old.insertKey({ key: keyOf('live'), expiresAt: Date.UTC(2027, 0, 1), tombstone: false });
      const clock = new ManualClock();
      const migratedAt = clock.now();
      const store = await old.open(clock);
      expect((await store.migrate()).applied).toEqual(versionsAfter(name, 1));
      expect(await store.getKey(ALICE, keyOf('tomb'))).toMatchObject({
        tombstone: true,
        tombstonedAt: migratedAt,
      });
      const live = await store.getKey(ALICE, keyOf('live'));
      expect(live).toMatchObject({ tombstone: false });
      expect(live).not.toHaveProperty('tombstonedAt');

      const policy = { terminalMaxAgeMs: WEEK, tombstoneMaxAgeMs: WEEK };
      clock.set(migratedAt + WEEK - 1);
      expect((await store.purgeExpired(policy)).tombstones).toBe(0);
      clock.set(migratedAt + WEEK);
      expect((await store.purgeExpired(policy)).tombstones).toBe(1);
      expect(await store.getKey(ALICE, keyOf('tomb'))).toBeUndefined();
      expect(await store.getKey(ALICE, keyOf('live'))).toBeDefined();
    } finally {
      await old.cleanup();
    }
  });

  it('written undated by an older build during an upgrade, are dated by the next purge, then live one TTL', async () => {
    const db = await at(2);
    try {
      await db.insertKey({ key: keyOf('tomb'), expiresAt: 0, tombstone: true });
      const clock = new ManualClock();
      const store = await db.open(clock);
      expect((await store.migrate()).applied).toEqual(versionsAfter(name, 2));
      const policy = { terminalMaxAgeMs: WEEK, tombstoneMaxAgeMs: WEEK };
      const sweptAt = clock.now();
      expect(await store.purgeExpired(policy)).toMatchObject({ keys: 0, tombstones: 0 });
      expect(await store.getKey(ALICE, keyOf('tomb'))).toMatchObject({
        tombstone: true,
        tombstonedAt: sweptAt,
      });
      clock.set(sweptAt + WEEK);
      expect((await store.purgeExpired(policy)).tombstones).toBe(1);
    } finally {
      await db.cleanup();
    }
  });
});
