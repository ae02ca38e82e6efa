/**
 * Retention policy and report (docs/semantics.md §6). Nothing is deleted on a timer unless the operator asks for one.
 */

/** Default age after which a terminal task may be purged. */
export const DEFAULT_TERMINAL_MAX_AGE_MS = 7 * 86_400_000;
/** Default key TTL (docs/semantics.md §2 "Defaults"). */
export const DEFAULT_KEY_TTL_MS = 86_400_000;
/** Default lifetime of a tombstone after its key expired. */
export const DEFAULT_TOMBSTONE_TTL_MS = 7 * 86_400_000;
/**
 * Default age after which an INPUT_REQUIRED or AUTH_REQUIRED task that nobody continued is ended (so retention
 * can collect it and its key; docs/semantics.md §6).
 */
export const DEFAULT_INTERRUPTED_MAX_AGE_MS = 30 * 86_400_000;
/** Default rows per batch. */
export const DEFAULT_PURGE_BATCH_SIZE = 1000;

/** SQLite's rows per retention batch when the policy names none (ADR 0138). */
export const SQLITE_PURGE_BATCH_SIZE = 100;

/** What to purge. */
export interface RetentionPolicy {
  /** Terminal tasks whose last write is older than this are deleted. */
  readonly terminalMaxAgeMs: number;
  /** Tombstones older than this, counted from when they became tombstones (`tombstonedAt`), are deleted. */
  readonly tombstoneMaxAgeMs?: number;
  /**
   * INPUT_REQUIRED and AUTH_REQUIRED tasks not written for this long are ended: a fenced write (fence + 1) moves
   * them to CANCELED with a status message saying nobody continued them, and appends that status event, so a
   * follower sees it and a late continuation is refused as terminal. Left out: interrupted tasks are kept.
   */
  readonly interruptedMaxAgeMs?: number;
  /**
   * Rows per batch (at least 1). Default: the store's own, 1,000 (`DEFAULT_PURGE_BATCH_SIZE`), except SQLite's 100
   * (`SQLITE_PURGE_BATCH_SIZE`): its batch runs on the server's own thread and holds the only writer, so a
   * batch of 1,000 held every send behind it for tens of milliseconds (ADR 0138).
   */
  readonly batchSize?: number;
  /** Stop after this many batches; the report then says `complete: false`. */
  readonly maxBatches?: number;
  /** Called after each batch, for progress displays. */
  readonly onProgress?: (report: PurgeReport) => void;
}

/** What a purge did. */
export interface PurgeReport {
  tasks: number;
  /** Interrupted tasks ended for being abandoned (`interruptedMaxAgeMs`). */
  abandoned: number;
  /** Keys that expired into tombstones. */
  keys: number;
  /** Tombstones deleted. */
  tombstones: number;
  batches: number;
  /** False when `maxBatches` stopped the sweep before everything eligible was purged. */
  complete: boolean;
}

/** An empty report. */
export function emptyPurgeReport(): PurgeReport {
  return { tasks: 0, abandoned: 0, keys: 0, tombstones: 0, batches: 0, complete: true };
}
