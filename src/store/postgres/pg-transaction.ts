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

/** Socket errors: the connection broke under the statement. */
const SOCKET_ERRORS = new Set(['ETIMEDOUT', 'ECONNRESET', 'EPIPE']);

/**
 * Whether a statement failed without the server's answer, leaving its connection in an unknown state (the
 * statement may still run, or its answer was lost on the way): pg's client-side `query_timeout` ("Query read
 * timeout"), or the socket breaking. A server error (a SQLSTATE) leaves the connection sound and in a known
 * state, and so does an error raised before anything was sent; both are rolled back as usual.
 */
function unanswered(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return err.message === 'Query read timeout' || SOCKET_ERRORS.has(sqlState(err) ?? '');
}

/**
 * One transaction, once, on a client checked out for it: BEGIN, `fn`, then COMMIT or ROLLBACK as `fn` decides
 * (ROLLBACK and rethrow when it throws). The client goes back to the pool, or is discarded when its connection
 * broke: pg reports a connection that dies between two statements as an `error` event on the checked-out
 * client, which nobody else listens to (without a listener it would end the process); kept here, it discards the
 * client, and the next statement fails on its own, so the transaction rejects and the server rolls it back.
 *
 * A statement that failed without the server's answer (a timeout on a silent connection) discards the client
 * without a ROLLBACK (ADR 0064): on that connection the ROLLBACK would only queue behind the statement nobody
 * answers and wait as long again (forever, without a timeout). Discarding destroys the socket; the server rolls
 * the transaction back when it sees the session end, or ends the session itself once it has sat idle in the
 * transaction for `idle_in_transaction_session_timeout`, so no lock outlives that bound.
 */
export async function transactionOnPool<T>(
  pool: PgPoolLike,
  fn: (client: PgClientLike) => Promise<{ commit: boolean; result: T }>,
): Promise<T> {
  const checkedOut = await pool.connect();
  let broken: Error | undefined;
  const onLost = (err: Error) => (broken ??= err);
  checkedOut.on?.('error', onLost);
  // Every statement of the transaction goes through here, so one that goes unanswered marks the client.
  const client: PgClientLike = {
    query: async (text, values) => {
      try {
        return await checkedOut.query(text, values);
      } catch (err) {
        if (unanswered(err)) broken ??= err instanceof Error ? err : new Error(String(err));
        throw err;
      }
    },
    release: () => undefined,
  };
  try {
    await client.query('BEGIN');
    const { commit, result } = await fn(client);
    await client.query(commit ? 'COMMIT' : 'ROLLBACK');
    return result;
  } catch (err) {
    if (broken === undefined) {
      try {
        await checkedOut.query('ROLLBACK');
      } catch (rollbackErr) {
        // The connection is unusable: discard it rather than hand it back mid-transaction.
        broken ??= rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr));
      }
    }
    throw err;
  } finally {
    checkedOut.removeListener?.('error', onLost);
    checkedOut.release(broken);
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
