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
    try {
      return await transactionOnPool(pool, async (client) => ({ commit: true, result: await fn(client) }));
    } catch (err) {
      if (attempt < ATTEMPTS && RETRYABLE.has(sqlState(err) ?? '')) continue;
      throw err;
    }
  }
}

/**
 * One transaction, once, on a client checked out for it: BEGIN, `fn`, then COMMIT or ROLLBACK as `fn` decides
 * (ROLLBACK and rethrow when it throws). The client goes back to the pool, or is discarded when its connection
 * broke: pg reports a connection that dies between two statements as an `error` event on the checked-out
 * client, which nobody else listens to (without a listener it would end the process); kept here, it discards the
 * client, and the next statement fails on its own, so the transaction rejects and the server rolls it back.
 */
export async function transactionOnPool<T>(
  pool: PgPoolLike,
  fn: (client: PgClientLike) => Promise<{ commit: boolean; result: T }>,
): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  const onLost = (err: Error) => (broken ??= err);
  client.on?.('error', onLost);
  try {
    await client.query('BEGIN');
    const { commit, result } = await fn(client);
    await client.query(commit ? 'COMMIT' : 'ROLLBACK');
    return result;
  } catch (err) {
    try {
      await client.query('ROLLBACK');
    } catch (rollbackErr) {
      // The connection is unusable: discard it rather than hand it back mid-transaction.
      broken ??= rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr));
    }
    throw err;
  } finally {
    client.removeListener?.('error', onLost);
    client.release(broken);
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
