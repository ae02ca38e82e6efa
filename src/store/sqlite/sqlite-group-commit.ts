/**
 * Group commit for the SQLite store (ADR 0047). better-sqlite3 is synchronous: a transaction, its fsync included,
 * holds the event loop, so requests that arrive meanwhile queue up in the socket buffers. Every write they make
 * while a batch is pending joins it: the queue is flushed once per turn of the event loop, in ONE `BEGIN
 * IMMEDIATE` transaction, so a burst of sends pays one fsync instead of one each.
 *
 * Each write still gets its own outcome: it runs in a savepoint of its own (a nested `db.transaction`), so one
 * that throws is rolled back alone and only its caller sees the error. A write's promise settles only after the
 * COMMIT that made it durable; if the COMMIT itself fails, nothing of the batch was written and every caller in it
 * gets that error.
 */
import type { Database } from 'better-sqlite3';

interface Pending {
  readonly fn: () => unknown;
  resolve(value: unknown): void;
  reject(err: Error): void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: Error };

/** Batches the writes of one turn of the event loop into one transaction. */
export class SqliteGroupCommit {
  #queue: Pending[] = [];
  #scheduled = false;
  /** Largest batch flushed so far (observability for the bench and the tests). */
  largestBatch = 0;
  /** Transactions committed so far. */
  commits = 0;

  constructor(private readonly db: Database) {}

  /** Runs `fn` in the next batch; resolves with its result once the batch committed. */
  run<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ fn, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        // setImmediate, not a microtask: the batch waits for the I/O that is ready now (the requests that queued
        // during the previous commit) to be read, so their writes join it.
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const batch = this.#queue;
    this.#queue = [];
    const outcomes: Outcome[] = [];
    try {
      if (batch.length === 1) {
        // Alone: no savepoint needed, the transaction is the write's own.
        outcomes.push({ ok: true, value: this.db.transaction(batch[0]!.fn).immediate() });
      } else {
        this.db
          .transaction(() => {
            for (const p of batch) {
              try {
                // Nested: better-sqlite3 runs it in a SAVEPOINT, rolled back alone if it throws.
                outcomes.push({ ok: true, value: this.db.transaction(p.fn)() });
              } catch (err) {
                outcomes.push({ ok: false, error: asError(err) });
              }
            }
          })
          .immediate();
      }
    } catch (err) {
      // BEGIN or COMMIT failed (busy past the timeout, disk full, I/O error): nothing of the batch was written.
      // A lone write's own error also lands here, which is the same thing for it.
      const error = asError(err);
      for (const p of batch) p.reject(error);
      return;
    }
    this.commits++;
    if (batch.length > this.largestBatch) this.largestBatch = batch.length;
    for (let i = 0; i < batch.length; i++) {
      const o = outcomes[i]!;
      if (o.ok) batch[i]!.resolve(o.value);
      else batch[i]!.reject(o.error);
    }
  }
}

function asError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
