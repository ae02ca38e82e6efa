/**
 * Group commit for the SQLite store (ADR 0047). better-sqlite3 is synchronous: a transaction, its fsync included,
 * holds the event loop, so requests that arrive meanwhile queue up in the socket buffers. Every write they make
 * while a batch is pending joins it: the queue is flushed once it stops growing (at most a few turns of the
 * event loop, ADR 0050), in ONE `BEGIN IMMEDIATE` transaction, so a burst of sends pays one fsync instead of one
 * each.
 *
 * Each write still gets its own outcome. A batch first runs its writes one after another in the transaction, with
 * nothing around each: writes almost never throw, and a savepoint per write costs as much as a small write. If
 * one does throw, the whole transaction is rolled back (nothing of the batch was written) and the batch runs again
 * with each write in a savepoint of its own (a nested `db.transaction`), so the one that throws is rolled back
 * alone and only its caller sees the error. The writes are functions of the database alone, so running them again
 * on the rolled-back database does what the first run meant to. A write's promise settles only after the COMMIT
 * that made it durable; if the COMMIT itself fails, nothing of the batch was written and every caller in it gets
 * that error.
 */
import type { Database } from 'better-sqlite3';
import { whenSettled } from '../sql/settle.js';

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
  /** Batches that had to run again with a savepoint per write, because one of their writes threw. */
  savepointRuns = 0;

  constructor(private readonly db: Database) {}

  /** Runs `fn` in the next batch; resolves with its result once the batch committed. */
  run<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ fn, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        whenSettled(
          () => this.#queue.length,
          () => this.#flush(),
        );
      }
    });
  }

  /**
   * Runs the batch in one transaction without savepoints; false (nothing written) if a write threw. BEGIN and
   * COMMIT failures are thrown: the batch as a whole failed, and running it again would only wait again.
   */
  #runUnguarded(batch: readonly Pending[], outcomes: Outcome[]): boolean {
    let threw = false;
    try {
      this.db
        .transaction(() => {
          for (const p of batch) {
            try {
              outcomes.push({ ok: true, value: p.fn() });
            } catch (err) {
              threw = true;
              throw err;
            }
          }
        })
        .immediate();
      return true;
    } catch (err) {
      if (threw) return false;
      throw err;
    }
  }

  #flush(): void {
    this.#scheduled = false;
    const batch = this.#queue;
    this.#queue = [];
    let outcomes: Outcome[] = [];
    try {
      if (batch.length === 1) {
        // Alone: no savepoint needed, the transaction is the write's own.
        outcomes.push({ ok: true, value: this.db.transaction(batch[0]!.fn).immediate() });
      } else if (!this.#runUnguarded(batch, outcomes)) {
        outcomes = [];
        this.savepointRuns++;
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
