/**
 * A SQLite intent store over the subset of better-sqlite3's API it needs (a structural interface, so the client
 * does not import the driver: pass `new Database(file)` yourself). better-sqlite3 runs statements synchronously,
 * so a recorded intent has committed (durable under SQLite's default `synchronous=FULL`) before `record`
 * resolves, hence before the first attempt is made.
 */
import type { IntentOutcome, IntentStore, SendIntent } from './intent-store.js';

/** A prepared statement: the part of better-sqlite3's `Statement` used here. */
export interface SqliteStatementLike {
  run(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** The part of better-sqlite3's `Database` used here. */
export interface SqliteDatabaseLike {
  exec(sql: string): unknown;
  prepare(sql: string): SqliteStatementLike;
}

interface Row {
  key: string;
  message_id: string;
  target: string;
  request: string;
  streaming: number;
  created_at: number;
}

/** Intents in a SQLite table (`a2a_once_client_intents` unless named). */
export class SqliteIntentStore implements IntentStore {
  private readonly insert: SqliteStatementLike;
  private readonly update: SqliteStatementLike;
  private readonly selectAll: SqliteStatementLike;
  private readonly selectTarget: SqliteStatementLike;

  constructor(db: SqliteDatabaseLike, options: { table?: string } = {}) {
    const table = options.table ?? 'a2a_once_client_intents';
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(table)) throw new TypeError(`not a table name: ${table}`);
    db.exec(`CREATE TABLE IF NOT EXISTS ${table} (
      key TEXT PRIMARY KEY,
      message_id TEXT NOT NULL,
      target TEXT NOT NULL,
      request TEXT NOT NULL,
      streaming INTEGER NOT NULL,
      created_at INTEGER NOT NULL,
      settled_at INTEGER,
      outcome TEXT
    )`);
    db.exec(
      `CREATE INDEX IF NOT EXISTS ${table}_pending ON ${table} (target, created_at) WHERE settled_at IS NULL`,
    );
    this.insert = db.prepare(
      `INSERT INTO ${table} (key, message_id, target, request, streaming, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (key) DO NOTHING`,
    );
    this.update = db.prepare(
      `UPDATE ${table} SET settled_at = ?, outcome = ? WHERE key = ? AND settled_at IS NULL`,
    );
    const cols = 'key, message_id, target, request, streaming, created_at';
    this.selectAll = db.prepare(
      `SELECT ${cols} FROM ${table} WHERE settled_at IS NULL ORDER BY created_at, key`,
    );
    this.selectTarget = db.prepare(
      `SELECT ${cols} FROM ${table} WHERE settled_at IS NULL AND target = ? ORDER BY created_at, key`,
    );
  }

  /** Records an intent (first record wins). */
  record(intent: SendIntent): Promise<void> {
    this.insert.run(
      intent.key,
      intent.messageId,
      intent.target,
      JSON.stringify(intent.request),
      intent.streaming ? 1 : 0,
      intent.createdAt,
    );
    return Promise.resolve();
  }

  /** Settles an intent. */
  settle(key: string, outcome: IntentOutcome): Promise<void> {
    this.update.run(Date.now(), JSON.stringify(outcome), key);
    return Promise.resolve();
  }

  /** Pending intents, oldest first. */
  pending(target?: string): Promise<SendIntent[]> {
    const rows = (target === undefined ? this.selectAll.all() : this.selectTarget.all(target)) as Row[];
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
