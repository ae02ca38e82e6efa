/**
 * The processed-set in SQLite, over the subset of better-sqlite3 it needs (structural: pass `new Database(file)`,
 * or a path to `SqliteProcessedSet.open`). Each `withEntry` is one BEGIN IMMEDIATE transaction: across processes
 * on one file the write lock serialises receivers; within a process, the transactions on one connection are
 * queued, since a connection has only one transaction and `apply` may await in the middle of it.
 *
 * `tx` is the Database itself: what `apply` writes through it commits or rolls back with the record. Anything
 * else this process does on the same connection while an `apply` awaits lands in that transaction too, so give
 * the receiver its own connection (ADR 0046).
 */
import { KeyedMutex } from './keyed-mutex.js';
import { WebhookConfigError, checkIdentifier } from './processed-set.js';
import type { EntryDecision, LockedEntry, ProcessedSet } from './processed-set.js';

/** A prepared statement: the part of better-sqlite3's `Statement` used here. */
export interface SqliteStatementLike {
  run(...params: unknown[]): { changes: number | bigint };
  get(...params: unknown[]): unknown;
}

/** The part of better-sqlite3's `Database` used here. */
export interface SqliteDatabaseLike {
  exec(sql: string): unknown;
  prepare(sql: string): SqliteStatementLike;
  pragma?(source: string): unknown;
  close?(): unknown;
}

/** Options of the SQLite processed-set. */
export interface SqliteProcessedSetOptions {
  /** Default `a2a_once_webhook_receipts`. */
  table?: string;
  /**
   * How long to wait for another process's write lock before failing the delivery with a 503 (the sender
   * retries), in ms. Default 5000. Waited asynchronously, so the event loop keeps serving meanwhile.
   */
  busyTimeoutMs?: number;
  now?: () => number;
}

// One queue per connection, shared by every set on it: SQLite has one transaction per connection.
const connectionQueues = new WeakMap<object, KeyedMutex>();

function isBusy(err: unknown): boolean {
  return (
    typeof err === 'object' &&
    err !== null &&
    'code' in err &&
    (err.code === 'SQLITE_BUSY' || err.code === 'SQLITE_LOCKED')
  );
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Last applied sequence numbers in a SQLite table. */
export class SqliteProcessedSet<
  D extends SqliteDatabaseLike = SqliteDatabaseLike,
> implements ProcessedSet<D> {
  readonly #db: D;
  readonly #queue: KeyedMutex;
  readonly #busyTimeoutMs: number;
  readonly #now: () => number;
  readonly #owned: boolean;
  readonly #select: SqliteStatementLike;
  readonly #upsert: SqliteStatementLike;
  readonly #purge: SqliteStatementLike;

  /** Uses `db` (creating the table if needed); `close()` leaves it open. */
  constructor(db: D, options: SqliteProcessedSetOptions = {}, owned = false) {
    const table = checkIdentifier(options.table ?? 'a2a_once_webhook_receipts', 'table');
    this.#db = db;
    this.#owned = owned;
    this.#busyTimeoutMs = Math.max(0, options.busyTimeoutMs ?? 5000);
    this.#now = options.now ?? Date.now;
    let queue = connectionQueues.get(db);
    if (queue === undefined) connectionQueues.set(db, (queue = new KeyedMutex()));
    this.#queue = queue;
    db.exec(`CREATE TABLE IF NOT EXISTS ${table} (
      scope TEXT NOT NULL,
      task_id TEXT NOT NULL,
      last_seq INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      PRIMARY KEY (scope, task_id)
    )`);
    db.exec(`CREATE INDEX IF NOT EXISTS ${table}_updated ON ${table} (updated_at)`);
    this.#select = db.prepare(`SELECT last_seq FROM ${table} WHERE scope = ? AND task_id = ?`);
    this.#upsert = db.prepare(
      `INSERT INTO ${table} (scope, task_id, last_seq, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (scope, task_id) DO UPDATE SET last_seq = excluded.last_seq, updated_at = excluded.updated_at`,
    );
    this.#purge = db.prepare(`DELETE FROM ${table} WHERE updated_at < ?`);
  }

  /**
   * Opens (or creates) the file with better-sqlite3 (loaded here only), in WAL mode with `synchronous=FULL`, so a
   * recorded entry survives a power cut. `close()` closes it. The `tx` handed to `apply` is that better-sqlite3
   * `Database`: name its type as `D` (`SqliteProcessedSet.open<Database>(file)`) to use all of it. The default
   * is the structural subset, so these types never need `@types/better-sqlite3` (ADR 0060).
   */
  static async open<D extends SqliteDatabaseLike = SqliteDatabaseLike>(
    file: string,
    options: SqliteProcessedSetOptions = {},
  ): Promise<SqliteProcessedSet<D>> {
    const Database = await import('better-sqlite3').then(
      (m) => m.default,
      () => {
        throw new WebhookConfigError(
          'SqliteProcessedSet.open needs better-sqlite3: npm install better-sqlite3',
        );
      },
    );
    // The schema is created under SQLite's own busy wait; later waits are ours (asynchronous), hence 0 after.
    const db = new Database(file, { timeout: Math.max(0, options.busyTimeoutMs ?? 5000) });
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    // What `open` made is a better-sqlite3 Database, which `D` (the caller's name for it) describes.
    const set = new SqliteProcessedSet(db as unknown as D, options, true);
    db.pragma('busy_timeout = 0');
    return set;
  }

  /** Runs `fn` inside BEGIN IMMEDIATE, waiting for another process's lock up to `busyTimeoutMs`. */
  async #transaction<T>(fn: () => Promise<{ commit: boolean; result: T }>): Promise<T> {
    return this.#queue.run('', async () => {
      const deadline = Date.now() + this.#busyTimeoutMs;
      for (let pause = 2; ; pause = Math.min(pause * 2, 50)) {
        try {
          this.#db.exec('BEGIN IMMEDIATE');
          break;
        } catch (err) {
          if (!isBusy(err) || Date.now() >= deadline) throw err;
          await sleep(pause);
        }
      }
      try {
        const { commit, result } = await fn();
        this.#db.exec(commit ? 'COMMIT' : 'ROLLBACK');
        return result;
      } catch (err) {
        try {
          this.#db.exec('ROLLBACK');
        } catch {
          // SQLite may have rolled back already (some errors end the transaction themselves).
        }
        throw err;
      }
    });
  }

  withEntry<T>(
    scope: string,
    taskId: string,
    fn: (entry: LockedEntry<D>) => Promise<EntryDecision<T>>,
  ): Promise<T> {
    return this.#transaction(async () => {
      const row = this.#select.get(scope, taskId) as { last_seq: number } | undefined;
      const decision = await fn({ lastSeq: row?.last_seq ?? 0, tx: this.#db });
      if (decision.recordSeq === undefined) return { commit: false, result: decision.result };
      this.#upsert.run(scope, taskId, decision.recordSeq, this.#now());
      return { commit: true, result: decision.result };
    });
  }

  lastSeq(scope: string, taskId: string): Promise<number> {
    const row = this.#select.get(scope, taskId) as { last_seq: number } | undefined;
    return Promise.resolve(row?.last_seq ?? 0);
  }

  purge(olderThanMs: number): Promise<number> {
    return this.#transaction(() => {
      const { changes } = this.#purge.run(this.#now() - olderThanMs);
      return Promise.resolve({ commit: true, result: Number(changes) });
    });
  }

  close(): Promise<void> {
    if (this.#owned) this.#db.close?.();
    return Promise.resolve();
  }
}
