/**
 * The SQLite outbox table, and its migration from the first schema (ADR 0067). The first schema keyed an intent
 * by its bare idempotency key, so a send to another agent or tenant with the same key was taken for the first
 * one; the table is now keyed by (target, tenant, key). A file of the first schema is migrated in place when a
 * store opens it: every row kept, pending and settled, the tenant read from the stored request
 * (`request.tenant`, absent or `''` meaning none), in one immediate transaction that checks the schema again once
 * it holds the write lock, so processes opening one file at once migrate it once and the others see the result.
 */
import type { SqliteDatabaseLike } from './sqlite-database-like.js';

interface Column {
  readonly name: string;
}

/** The columns of an intent both schemas have, as better-sqlite3 returns them. */
export interface IntentRow {
  key: string;
  message_id: string;
  target: string;
  request: string;
  streaming: number;
  created_at: number;
}

/** A row of the first schema, moved whole by the migration. */
interface FirstSchemaRow extends IntentRow {
  settled_at: number | null;
  outcome: string | null;
}

function createTable(db: SqliteDatabaseLike, table: string, ifNotExists: boolean): void {
  db.exec(`CREATE TABLE ${ifNotExists ? 'IF NOT EXISTS ' : ''}${table} (
    target TEXT NOT NULL,
    tenant TEXT NOT NULL DEFAULT '',
    key TEXT NOT NULL,
    message_id TEXT NOT NULL,
    request TEXT NOT NULL,
    streaming INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    settled_at INTEGER,
    outcome TEXT,
    PRIMARY KEY (target, tenant, key)
  )`);
}

/** The tenant inside a stored request; a request that does not parse keeps no tenant (it was written by us). */
function tenantInRequest(request: string): string {
  try {
    const tenant = (JSON.parse(request) as { tenant?: unknown }).tenant;
    return typeof tenant === 'string' ? tenant : '';
  } catch {
    return '';
  }
}

/** Copies a first-schema table into the current one, under the same name. Runs inside the caller's transaction. */
function migrateFirstSchema(db: SqliteDatabaseLike, table: string): void {
  const next = `${table}__keyed_per_agent`;
  db.exec(`DROP TABLE IF EXISTS ${next}`);
  createTable(db, next, false);
  const insert = db.prepare(
    `INSERT INTO ${next} (target, tenant, key, message_id, request, streaming, created_at, settled_at, outcome)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const rows = db
    .prepare(
      `SELECT key, message_id, target, request, streaming, created_at, settled_at, outcome FROM ${table}`,
    )
    .all() as FirstSchemaRow[];
  for (const r of rows) {
    insert.run(
      r.target,
      tenantInRequest(r.request),
      r.key,
      r.message_id,
      r.request,
      r.streaming,
      r.created_at,
      r.settled_at,
      r.outcome,
    );
  }
  // Dropping the old table drops its index too, so the current one can take the same name below.
  db.exec(`DROP TABLE ${table}`);
  db.exec(`ALTER TABLE ${next} RENAME TO ${table}`);
}

/**
 * Creates the table, or migrates a first-schema one, and its index of pending intents. `BEGIN IMMEDIATE` takes
 * the write lock before the schema is read, so a second process waits (the driver's busy timeout) and then finds
 * the table migrated.
 */
export function openIntentTable(db: SqliteDatabaseLike, table: string): void {
  db.exec('BEGIN IMMEDIATE');
  try {
    createTable(db, table, true);
    const columns = db.prepare(`PRAGMA table_info(${table})`).all() as Column[];
    if (!columns.some((c) => c.name === 'tenant')) migrateFirstSchema(db, table);
    db.exec(
      `CREATE INDEX IF NOT EXISTS ${table}_pending ON ${table} (target, created_at) WHERE settled_at IS NULL`,
    );
    db.exec('COMMIT');
  } catch (err) {
    try {
      db.exec('ROLLBACK');
    } catch {
      // Nothing to roll back: BEGIN itself failed (the database is busy), and that error is the one to report.
    }
    throw err;
  }
}
