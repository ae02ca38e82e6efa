/**
 * The batch loop of `purgeExpired` shared by the SQL stores. A batch is one transaction doing up to `batchSize`
 * items of work, taken in order: finished tasks, then expired keys (into tombstones), then old tombstones. The
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
  readonly keys: number;
  readonly tombstones: number;
}

/** The backend's half of a purge. */
export interface PurgeSteps {
  /** Runs one batch of at most `limit` items in one transaction. */
  runBatch(limit: number): Promise<BatchResult>;
  /** Whether anything is still eligible (asked only when `maxBatches` stopped the loop). */
  hasPurgeable(): Promise<boolean>;
}

/** Runs batches until nothing is left or `maxBatches` is reached. */
export async function runPurge(policy: RetentionPolicy, steps: PurgeSteps): Promise<PurgeReport> {
  const report = emptyPurgeReport();
  const limit = Math.max(1, Math.floor(policy.batchSize ?? DEFAULT_PURGE_BATCH_SIZE));
  for (;;) {
    const r = await steps.runBatch(limit);
    const n = r.tasks + r.keys + r.tombstones;
    if (n === 0) break;
    report.tasks += r.tasks;
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
