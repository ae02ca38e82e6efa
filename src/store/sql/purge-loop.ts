/**
 * The batch loop of `purgeExpired` shared by the SQL stores. A batch is one transaction doing up to `batchSize`
 * items of work, taken in order: finished tasks, then abandoned interrupted tasks (ended with a fenced write, see
 * ../abandon.ts), then expired keys (into tombstones), then old tombstones. An ended task is terminal as of the
 * sweep, so it stays for the terminal age like any other and a later sweep removes it. The
 * counting matches the memory store: a report's `batches` is the number of batches that did something, progress
 * is reported after every full batch and once at the end, and `complete` is false only when `maxBatches`
 * stopped the sweep with work left.
 */
import {
  DEFAULT_PURGE_BATCH_SIZE,
  emptyPurgeReport,
  type PurgeReport,
  type RetentionPolicy,
} from '../retention.js';

/** What one batch did. */
export interface BatchResult {
  readonly tasks: number;
  readonly abandoned: number;
  readonly keys: number;
  readonly tombstones: number;
}

/** The backend's half of a purge. */
export interface PurgeSteps {
  /** Runs once before the first batch (housekeeping that is not counted as purge work). */
  prepare?(): Promise<void>;
  /** Runs one batch of at most `limit` items in one transaction. */
  runBatch(limit: number): Promise<BatchResult>;
  /** Whether anything is still eligible (asked only when `maxBatches` stopped the loop). */
  hasPurgeable(): Promise<boolean>;
}

/**
 * Runs batches until nothing is left or `maxBatches` is reached; `defaultBatchSize` is the store's own when the
 * policy names none (SQLite's is smaller, ADR 0138).
 */
export async function runPurge(
  policy: RetentionPolicy,
  steps: PurgeSteps,
  defaultBatchSize = DEFAULT_PURGE_BATCH_SIZE,
): Promise<PurgeReport> {
  const report = emptyPurgeReport();
  const limit = Math.max(1, Math.floor(policy.batchSize ?? defaultBatchSize));
  await steps.prepare?.();
  for (;;) {
    const r = await steps.runBatch(limit);
    const n = r.tasks + r.abandoned + r.keys + r.tombstones;
    if (n === 0) break;
    report.tasks += r.tasks;
    report.abandoned += r.abandoned;
    report.keys += r.keys;
    report.tombstones += r.tombstones;
    report.batches++;
    if (n < limit) break;
    policy.onProgress?.({ ...report });
    if (policy.maxBatches !== undefined && report.batches >= policy.maxBatches) {
      report.complete = !(await steps.hasPurgeable());
      break;
    }
  }
  policy.onProgress?.({ ...report });
  return report;
}
