/**
 * Adapts a PGlite database (PostgreSQL in WebAssembly, one connection) to `PgPoolLike`, for fast tests and
 * single-process use. PGlite has one session, so a transaction must own it: `connect()` takes a process-local
 * mutex that the client's `release()` gives back, and a pool-level `query` waits for it too, so a one-off
 * statement never lands inside somebody else's open transaction.
 */
import type { PgClientLike, PgPoolLike, PgResultLike } from './pg-pool-like.js';

/** The subset of PGlite the adapter uses (structural: nothing here imports PGlite). */
export interface PgliteLike {
  query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
  close?(): Promise<void>;
}

/** A FIFO mutex. */
class Mutex {
  #tail: Promise<void> = Promise.resolve();
  /** Resolves with the unlock function once the lock is ours. */
  lock(): Promise<() => void> {
    let unlock!: () => void;
    const released = new Promise<void>((resolve) => (unlock = resolve));
    const ready = this.#tail.then(() => unlock);
    this.#tail = this.#tail.then(() => released);
    return ready;
  }
}

/** Wraps `db` as a pool. `end()` closes the database. */
export function pglitePool(db: PgliteLike): PgPoolLike {
  const mutex = new Mutex();
  const run = async (text: string, values?: unknown[]): Promise<PgResultLike> => {
    const r = await db.query(text, values);
    return { rows: r.rows as Record<string, unknown>[] };
  };
  return {
    async query(text, values) {
      const unlock = await mutex.lock();
      try {
        return await run(text, values);
      } finally {
        unlock();
      }
    },
    async connect(): Promise<PgClientLike> {
      const unlock = await mutex.lock();
      let released = false;
      return {
        query: run,
        release() {
          if (released) return;
          released = true;
          unlock();
        },
      };
    },
    async end() {
      await db.close?.();
    },
  };
}
