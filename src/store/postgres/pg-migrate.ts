/**
 * Applies the PostgreSQL migrations under `pg_advisory_xact_lock`, so replicas starting together apply each
 * version exactly once: the first takes the lock, the others wait, then find the versions in the ledger. DDL is
 * transactional in PostgreSQL, so a failed migration leaves nothing half-applied.
 */
import type { Clock } from '../clock.js';
import { latestVersion, type MigrationReport, type SchemaStatus } from '../sql/migration.js';
import { toInt } from '../sql/sql-rows.js';
import { StoreError } from '../sql/store-error.js';
import type { PgPoolLike } from './pg-pool-like.js';
import { pgLedger, pgMigrations } from './pg-schema.js';
import type { PgTables } from './pg-tables.js';
import { inTransaction } from './pg-transaction.js';

/** Advisory-lock class of migrations (with `hashtext(schema)` as the second key). */
export const MIGRATION_LOCK_CLASS = 0x41324f00;

/** Brings the schema `t.schema` (created if missing) to the newest version. */
/** The version the schema holds (0 without a ledger) and the newest known, read only. */
export async function postgresSchemaStatus(pool: PgPoolLike, t: PgTables): Promise<SchemaStatus> {
  const latest = latestVersion(pgMigrations(t));
  const { rows } = await pool.query('SELECT to_regclass($1) IS NOT NULL AS present', [t.migrations]);
  if ((rows[0] as { present?: boolean } | undefined)?.present !== true) return { version: 0, latest };
  const res = await pool.query(`SELECT MAX(version) AS version FROM ${t.migrations}`);
  const version = (res.rows[0] as { version: number | string | null } | undefined)?.version;
  return { version: version === null || version === undefined ? 0 : Number(version), latest };
}

export function migratePostgres(pool: PgPoolLike, t: PgTables, clock: Clock): Promise<MigrationReport> {
  const migrations = pgMigrations(t);
  const newest = latestVersion(migrations);
  return inTransaction(pool, async (c) => {
    await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [MIGRATION_LOCK_CLASS, t.schema]);
    await c.query(`CREATE SCHEMA IF NOT EXISTS ${t.quotedSchema}`);
    await c.query(pgLedger(t));
    const { rows } = await c.query(`SELECT version FROM ${t.migrations}`);
    const done = new Set(rows.map((r) => toInt(r.version)));
    const found = Math.max(0, ...done);
    if (found > newest) {
      throw new StoreError(
        'SCHEMA_TOO_NEW',
        `schema ${t.schema} is at version ${found}, newer than this a2a-once supports (${newest})`,
      );
    }
    const applied: number[] = [];
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      const now = clock.now();
      for (const statement of m.statements) await c.query(statement);
      for (const statement of m.atMigrationTime ?? []) await c.query(statement, [now]);
      await c.query(`INSERT INTO ${t.migrations} (version, name, applied_at) VALUES ($1, $2, $3)`, [
        m.version,
        m.name,
        now,
      ]);
      applied.push(m.version);
    }
    return { applied, version: newest };
  });
}
