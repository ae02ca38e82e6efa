/**
 * The processed-set in PostgreSQL. Each `withEntry` is one transaction on one pooled connection: the task's row
 * is created if absent (`ON CONFLICT DO NOTHING`, which waits for a racing creator) and locked with
 * `SELECT ... FOR UPDATE`, so receivers in any number of processes on one database take their turn per task, and
 * the new last sequence number commits with whatever `apply` wrote through `tx` (the same client).
 */
import type { PgClientLike, PgPoolLike } from './pg-pool-like.js';
import { transactionOnPool } from '../store/postgres/pg-transaction.js';
import { checkIdentifier } from './processed-set.js';
import type { EntryDecision, LockedEntry, ProcessedSet } from './processed-set.js';

/** Options of the PostgreSQL processed-set. */
export interface PostgresProcessedSetOptions {
  /** Schema of the table (created if absent). Default `public`. */
  schema?: string;
  /** Default `a2a_once_webhook_receipts`. */
  table?: string;
  /** Whether `close()` ends the pool. Default false. */
  ownsPool?: boolean;
  now?: () => number;
}

/** How many rows one purge statement deletes, so retention never holds many row locks at once. */
const PURGE_BATCH = 1000;

/** Last applied sequence numbers in a PostgreSQL table. */
export class PostgresProcessedSet implements ProcessedSet<PgClientLike> {
  readonly #pool: PgPoolLike;
  readonly #schema: string;
  readonly #table: string;
  readonly #bareTable: string;
  readonly #ownsPool: boolean;
  readonly #now: () => number;
  #ready: Promise<void> | undefined;

  constructor(pool: PgPoolLike, options: PostgresProcessedSetOptions = {}) {
    this.#pool = pool;
    this.#schema = checkIdentifier(options.schema ?? 'public', 'schema');
    const table = checkIdentifier(options.table ?? 'a2a_once_webhook_receipts', 'table');
    this.#bareTable = table;
    this.#table = `"${this.#schema}"."${table}"`;
    this.#ownsPool = options.ownsPool ?? false;
    this.#now = options.now ?? Date.now;
  }

  /** Creates the schema and table if absent (done before the first use; call it to fail early). */
  ready(): Promise<void> {
    this.#ready ??= transactionOnPool(this.#pool, async (client) => {
      // Concurrent CREATE ... IF NOT EXISTS can still collide in the catalog; one creator at a time.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`a2a-once webhooks ${this.#table}`]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS "${this.#schema}"`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${this.#table} (
        scope TEXT NOT NULL,
        task_id TEXT NOT NULL,
        last_seq BIGINT NOT NULL,
        updated_at BIGINT NOT NULL,
        PRIMARY KEY (scope, task_id)
      )`);
      await client.query(
        `CREATE INDEX IF NOT EXISTS "${this.#bareTable}_updated" ON ${this.#table} (updated_at)`,
      );
      return { commit: true, result: undefined };
    }).catch((err: unknown) => {
      this.#ready = undefined; // a later call tries again
      throw err;
    });
    return this.#ready;
  }

  async withEntry<T>(
    scope: string,
    taskId: string,
    fn: (entry: LockedEntry<PgClientLike>) => Promise<EntryDecision<T>>,
  ): Promise<T> {
    await this.ready();
    return transactionOnPool(this.#pool, async (client) => {
      await client.query(
        `INSERT INTO ${this.#table} (scope, task_id, last_seq, updated_at) VALUES ($1, $2, 0, $3)
         ON CONFLICT (scope, task_id) DO NOTHING`,
        [scope, taskId, this.#now()],
      );
      const { rows } = await client.query(
        `SELECT last_seq FROM ${this.#table} WHERE scope = $1 AND task_id = $2 FOR UPDATE`,
        [scope, taskId],
      );
      const decision = await fn({ lastSeq: Number(rows[0]?.last_seq ?? 0), tx: client });
      // Nothing to record: roll back, so a first look at a task leaves no row behind.
      if (decision.recordSeq === undefined) return { commit: false, result: decision.result };
      await client.query(
        `UPDATE ${this.#table} SET last_seq = $3, updated_at = $4 WHERE scope = $1 AND task_id = $2`,
        [scope, taskId, decision.recordSeq, this.#now()],
      );
      return { commit: true, result: decision.result };
    });
  }

  async lastSeq(scope: string, taskId: string): Promise<number> {
    await this.ready();
    const { rows } = await this.#pool.query(
      `SELECT last_seq FROM ${this.#table} WHERE scope = $1 AND task_id = $2`,
      [scope, taskId],
    );
    return Number(rows[0]?.last_seq ?? 0);
  }

  async purge(olderThanMs: number): Promise<number> {
    await this.ready();
    const cutoff = this.#now() - olderThanMs;
    let dropped = 0;
    for (;;) {
      // The outer `updated_at < $1` is checked again on a row a delivery updated meanwhile, so it is kept.
      const { rows } = await this.#pool.query(
        `DELETE FROM ${this.#table} WHERE (scope, task_id) IN (
           SELECT scope, task_id FROM ${this.#table} WHERE updated_at < $1 LIMIT ${PURGE_BATCH}
         ) AND updated_at < $1 RETURNING 1`,
        [cutoff],
      );
      dropped += rows.length;
      if (rows.length < PURGE_BATCH) return dropped;
    }
  }

  async close(): Promise<void> {
    if (this.#ownsPool) await this.#pool.end?.();
  }
}
