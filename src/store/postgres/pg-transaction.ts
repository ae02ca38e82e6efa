/**
 * Transactions on a client checked out of the pool, at READ COMMITTED (PostgreSQL's default). A deadlock or
 * serialization failure rolls the whole attempt back, so it is retried from the start (a few times).
 */
import type { PgClientLike, PgPoolLike } from './pg-pool-like.js';

const RETRYABLE = new Set(['40001', '40P01']);
const ATTEMPTS = 5;

function sqlState(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && 'code' in err && typeof err.code === 'string'
    ? err.code
    : undefined;
}

/** Runs `fn` between BEGIN and COMMIT on one client; rolls back and rethrows on error. */
export async function inTransaction<T>(
  pool: PgPoolLike,
  fn: (client: PgClientLike) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    let broken: Error | undefined;
    // The connection may die between two statements (a restart, a terminated backend): pg then emits `error` on
    // the checked-out client, which nobody else listens to. Kept here, it discards the client on release; the
    // next statement fails on its own, so the transaction rejects and is rolled back by the server.
    const onLost = (err: Error) => (broken ??= err);
    client.on?.('error', onLost);
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackErr) {
        // The connection is unusable: discard it rather than hand it back mid-transaction.
        broken = rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr));
      }
      if (attempt < ATTEMPTS && RETRYABLE.has(sqlState(err) ?? '')) continue;
      throw err;
    } finally {
      client.removeListener?.('error', onLost);
      client.release(broken);
    }
  }
}

/** Runs one statement (its own transaction), again from the start on a deadlock or serialization failure. */
export async function retryingSerialization<T>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (attempt < ATTEMPTS && RETRYABLE.has(sqlState(err) ?? '')) continue;
      throw err;
    }
  }
}
