/**
 * The processed-set contract: per task, the sequence number of the last event applied, kept by the receiver
 * (docs/semantics.md §5, "Receiver"; ADR 0046). One suite (test/webhooks/processed-set-contract.ts) runs over
 * every implementation: memory, SQLite, PostgreSQL.
 *
 * The whole guarantee rests on `withEntry`: the task's entry is locked against every other user of the same set
 * (other receivers in this process, other processes on the same database), `fn` runs under that lock, and the
 * sequence number it returns is recorded in the same transaction as whatever `fn` wrote through `tx`.
 */

/** What `fn` sees of a task's entry while it holds the lock. */
export interface LockedEntry<Tx> {
  /** The last applied sequence number; 0 when nothing was applied (or the entry was dropped by retention). */
  readonly lastSeq: number;
  /**
   * The transaction the record will be written in: a write made through it commits or rolls back with the record
   * (SQLite: the Database, inside BEGIN IMMEDIATE; PostgreSQL: the pool client, inside BEGIN). Memory: undefined.
   */
  readonly tx: Tx;
}

/** What `fn` decides. */
export interface EntryDecision<T> {
  /** Record this as the task's last applied sequence number (omit to change nothing and roll back). */
  readonly recordSeq?: number;
  /** Handed back by `withEntry`. */
  readonly result: T;
}

/** Where a receiver keeps what it applied. */
export interface ProcessedSet<Tx> {
  /**
   * Runs `fn` with the task's entry locked; records `recordSeq` atomically with `fn`'s writes through `tx`. When
   * `fn` throws, nothing is recorded (and on SQL its writes through `tx` are rolled back) and the error is rethrown.
   */
  withEntry<T>(
    scope: string,
    taskId: string,
    fn: (entry: LockedEntry<Tx>) => Promise<EntryDecision<T>>,
  ): Promise<T>;
  /** The last applied sequence number of a task (0 if none), read without the lock. */
  lastSeq(scope: string, taskId: string): Promise<number>;
  /**
   * Drops entries not written for `olderThanMs` (retention); returns how many. A dropped task reads as never seen:
   * its next event is a gap, repaired from a snapshot (ADR 0046 says what that means for a very late duplicate).
   */
  purge(olderThanMs: number): Promise<number>;
  /** Releases what the set opened itself (a file it opened, a pool it was told it owns). */
  close(): Promise<void>;
}

/** A table name we can splice into SQL: letters, digits and underscores. */
export function checkIdentifier(name: string, what: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name))
    throw new WebhookConfigError(
      `${what} must be letters, digits and underscores (got ${JSON.stringify(name)})`,
    );
  return name;
}

/** A receiver or processed-set configured in a way that cannot work; thrown at construction. */
export class WebhookConfigError extends Error {
  readonly code = 'WEBHOOK_CONFIG_INVALID';
  constructor(message: string) {
    super(message);
    this.name = 'WebhookConfigError';
  }
}
