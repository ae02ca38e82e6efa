/**
 * Applies the SQLite migrations in one IMMEDIATE transaction, so two processes opening one file at once apply
 * each version exactly once (the second waits for the write lock, then finds the versions in the ledger).
 */
import type { Database } from 'better-sqlite3';
import type { Clock } from '../clock.js';
import { latestVersion, type MigrationReport, type SchemaStatus } from '../sql/migration.js';
import { StoreError } from '../sql/store-error.js';
import { SQLITE_LEDGER, SQLITE_MIGRATIONS } from './sqlite-schema.js';

/** The version the file holds (0 without a ledger) and the newest known, read only. */
export function sqliteSchemaStatus(db: Database): SchemaStatus {
  const latest = latestVersion(SQLITE_MIGRATIONS);
  const ledger = db
    .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'a2a_migrations'")
    .get();
  if (ledger === undefined) return { version: 0, latest };
  const row = db.prepare('SELECT MAX(version) AS version FROM a2a_migrations').get() as {
    version: number | null;
  };
  return { version: row.version ?? 0, latest };
}

/** Brings the database to the newest schema version. */
export function migrateSqlite(db: Database, clock: Clock): MigrationReport {
  const run = db.transaction((): MigrationReport => {
    db.exec(SQLITE_LEDGER);
    const rows = db.prepare('SELECT version FROM a2a_migrations').all() as { version: number }[];
    const done = new Set(rows.map((r) => r.version));
    const newest = latestVersion(SQLITE_MIGRATIONS);
    const found = Math.max(0, ...done);
    if (found > newest) {
      throw new StoreError(
        'SCHEMA_TOO_NEW',
        `database schema version ${found} is newer than this a2a-once supports (${newest})`,
      );
    }
    const applied: number[] = [];
    const record = db.prepare('INSERT INTO a2a_migrations (version, name, applied_at) VALUES (?, ?, ?)');
    for (const m of SQLITE_MIGRATIONS) {
      if (done.has(m.version)) continue;
      const now = clock.now();
      for (const sql of m.statements) db.exec(sql);
      for (const sql of m.atMigrationTime ?? []) db.prepare(sql).run({ now });
      record.run(m.version, m.name, now);
      applied.push(m.version);
    }
    return { applied, version: newest };
  });
  return run.immediate();
}
