/**
 * A SQLite intent store over the subset of better-sqlite3's API it needs (a structural interface, so the client
 * does not import the driver: pass `new Database(file)` yourself). better-sqlite3 runs statements synchronously,
 * so a recorded intent has committed (durable under SQLite's default `synchronous=FULL`) before `record`
 * resolves, hence before the first attempt is made.
 *
 * Rows are keyed by (target, tenant, key) (ADR 0067); a file written before that is migrated when opened
 * (`sqlite-intent-schema.ts`). Do not let a client of an older version use the file after that: its statements
 * assume the old key.
 */
import type { IntentOutcome, IntentStore, SendIntent } from './intent-store.js';
import { intentIdentityOf, tenantOf } from './intent-identity.js';
import type { IntentIdentity } from './intent-identity.js';
import { openIntentTable, type IntentRow } from './sqlite-intent-schema.js';
import type { SqliteDatabaseLike, SqliteStatementLike } from './sqlite-database-like.js';

export type { SqliteDatabaseLike, SqliteStatementLike } from './sqlite-database-like.js';

/** Intents in a SQLite table (`a2a_once_client_intents` unless named). */
export class SqliteIntentStore implements IntentStore {
  private readonly insert: SqliteStatementLike;
  private readonly update: SqliteStatementLike;
  private readonly selectAll: SqliteStatementLike;
  private readonly selectTarget: SqliteStatementLike;

  constructor(db: SqliteDatabaseLike, options: { table?: string } = {}) {
    const table = options.table ?? 'a2a_once_client_intents';
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(table)) throw new TypeError(`not a table name: ${table}`);
    openIntentTable(db, table);
    this.insert = db.prepare(
      `INSERT INTO ${table} (target, tenant, key, message_id, request, streaming, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (target, tenant, key) DO NOTHING`,
    );
    this.update = db.prepare(
      `UPDATE ${table} SET settled_at = ?, outcome = ?
       WHERE target = ? AND tenant = ? AND key = ? AND settled_at IS NULL`,
    );
    const cols = 'key, message_id, target, request, streaming, created_at';
    this.selectAll = db.prepare(
      `SELECT ${cols} FROM ${table} WHERE settled_at IS NULL ORDER BY created_at, target, tenant, key`,
    );
    this.selectTarget = db.prepare(
      `SELECT ${cols} FROM ${table} WHERE settled_at IS NULL AND target = ? ORDER BY created_at, target, tenant, key`,
    );
  }

  /** Records an intent (first record per identity wins). */
  record(intent: SendIntent): Promise<void> {
    const id = intentIdentityOf(intent);
    this.insert.run(
      id.target,
      id.tenant,
      id.key,
      intent.messageId,
      JSON.stringify(intent.request),
      intent.streaming ? 1 : 0,
      intent.createdAt,
    );
    return Promise.resolve();
  }

  /** Settles the intent of `identity`. */
  settle(identity: IntentIdentity, outcome: IntentOutcome): Promise<void> {
    this.update.run(Date.now(), JSON.stringify(outcome), identity.target, tenantOf(identity), identity.key);
    return Promise.resolve();
  }

  /** Pending intents, oldest first. */
  pending(target?: string): Promise<SendIntent[]> {
    const rows = (target === undefined ? this.selectAll.all() : this.selectTarget.all(target)) as IntentRow[];
    return Promise.resolve(
      rows.map((r) => ({
        key: r.key,
        messageId: r.message_id,
        target: r.target,
        request: JSON.parse(r.request) as SendIntent['request'],
        streaming: r.streaming === 1,
        createdAt: r.created_at,
      })),
    );
  }
}
