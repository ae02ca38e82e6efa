/**
 * The processed-set in this process's memory. Exactly once while the process lives; after a restart every task
 * reads as never seen, so its next event is repaired from a snapshot and a redelivered old event is applied again
 * (ADR 0046). For a receiver that must survive restarts, use the SQLite or PostgreSQL set.
 */
import { KeyedMutex } from './keyed-mutex.js';
import type { EntryDecision, LockedEntry, ProcessedSet } from './processed-set.js';

interface Entry {
  lastSeq: number;
  updatedAt: number;
}

/** Last applied sequence numbers in a Map; `tx` is undefined (there is nothing to join). */
export class MemoryProcessedSet implements ProcessedSet<undefined> {
  readonly #entries = new Map<string, Entry>();
  // Receivers sharing this set share its locks, so two of them in one process still apply once.
  readonly #locks = new KeyedMutex();
  readonly #now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  async withEntry<T>(
    scope: string,
    taskId: string,
    fn: (entry: LockedEntry<undefined>) => Promise<EntryDecision<T>>,
  ): Promise<T> {
    const key = `${scope}\u0000${taskId}`;
    return this.#locks.run(key, async () => {
      const decision = await fn({ lastSeq: this.#entries.get(key)?.lastSeq ?? 0, tx: undefined });
      if (decision.recordSeq !== undefined)
        this.#entries.set(key, { lastSeq: decision.recordSeq, updatedAt: this.#now() });
      return decision.result;
    });
  }

  lastSeq(scope: string, taskId: string): Promise<number> {
    return Promise.resolve(this.#entries.get(`${scope}\u0000${taskId}`)?.lastSeq ?? 0);
  }

  purge(olderThanMs: number): Promise<number> {
    const cutoff = this.#now() - olderThanMs;
    let dropped = 0;
    for (const [key, entry] of this.#entries) {
      if (entry.updatedAt < cutoff) {
        this.#entries.delete(key);
        dropped++;
      }
    }
    return Promise.resolve(dropped);
  }

  /** How many tasks have an entry. */
  get size(): number {
    return this.#entries.size;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
