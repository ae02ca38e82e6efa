/**
 * When the in-memory store deletes: the amortised sweep (run as tasks are created, with a budget) and
 * `purgeExpired` (on demand, in batches; docs/semantics.md §6). Both take from the oldest end of the store-wide
 * queues and stop at the first item too young, so neither scans what it keeps, and no scope or stuck item can
 * stand in front of the rest (ADR 0025):
 * - finished tasks past their age are deleted; keys parked on them become tombstones with them;
 * - keys past their expiry become tombstones, or are parked on their task while it still exists;
 * - tombstones are deleted once their TTL has passed since they BECAME tombstones (`tombstonedAt`);
 * - with `interruptedMaxAgeMs`, interrupted tasks not written for that long are ended first (ADR 0024), and
 *   then age like any finished task, from the ending.
 */
import { isAbandoned } from '../abandon.js';
import {
  DEFAULT_PURGE_BATCH_SIZE,
  emptyPurgeReport,
  type PurgeReport,
  type RetentionPolicy,
} from '../retention.js';
import type { MemoryState } from './memory-state.js';

/**
 * One amortised sweep. Each kind of work gets its own budget, so a backlog of one (say, thousands of finished
 * tasks reaching their TTL together) never starves the others.
 */
export function sweep(state: MemoryState, now: number, budget: number): void {
  const { terminalTtlMs, tombstoneTtlMs } = state.limits;
  for (let n = 0; n < budget; n++) {
    const e = state.finished.oldest;
    if (e === undefined || now - e.record.updatedAt < terminalTtlMs) break;
    state.removeTask(e, now);
  }
  state.expireKeys(now, budget);
  for (let n = 0; n < budget; n++) {
    const t = state.tombstoneAge.oldest;
    if (t === undefined || now - t.tombstonedAt < tombstoneTtlMs) break;
    state.dropTombstone(t);
  }
}

/** Deletes every finished task past the terminal TTL (before a listing, so what is listed is exactly what is visible). */
export function dropPastTtl(state: MemoryState, now: number): void {
  sweepFinished(state, now, state.limits.terminalTtlMs, () => true);
}

function sweepFinished(
  state: MemoryState,
  now: number,
  maxAge: number,
  each: (keysMade: number) => boolean,
): void {
  for (let e = state.finished.oldest; e !== undefined; e = state.finished.oldest) {
    if (now - e.record.updatedAt < maxAge) return;
    const before = state.tombstonesMade;
    state.removeTask(e, now);
    if (!each(state.tombstonesMade - before)) return;
  }
}

/** `purgeExpired` for the memory store. */
export function purge(state: MemoryState, policy: RetentionPolicy, now: number): PurgeReport {
  const report = emptyPurgeReport();
  const batchSize = Math.max(1, policy.batchSize ?? DEFAULT_PURGE_BATCH_SIZE);
  const tombstoneTtl = policy.tombstoneMaxAgeMs ?? state.limits.tombstoneTtlMs;
  const cutoff = policy.interruptedMaxAgeMs === undefined ? undefined : now - policy.interruptedMaxAgeMs;
  let inBatch = 0;
  let going = true;
  /** Counts one unit of work; false once `maxBatches` batches are full. */
  const tick = (): boolean => {
    if (++inBatch < batchSize) return true;
    inBatch = 0;
    report.batches++;
    policy.onProgress?.({ ...report });
    going = policy.maxBatches === undefined || report.batches < policy.maxBatches;
    return going;
  };

  if (cutoff !== undefined) {
    for (let e = state.interrupted.oldest; going && e !== undefined; e = state.interrupted.oldest) {
      if (!isAbandoned(e.record, cutoff)) break;
      state.abandon(e, now);
      report.abandoned++;
      tick();
    }
  }
  if (going) {
    sweepFinished(state, now, policy.terminalMaxAgeMs, (keysMade) => {
      report.tasks++;
      tick();
      // Keys parked on the task (past their expiry) became tombstones with it.
      for (let i = 0; i < keysMade; i++) {
        report.keys++;
        tick();
      }
      return going;
    });
  }
  for (
    let k = going ? state.nextKeyToExpire(now) : undefined;
    k !== undefined;
    k = state.nextKeyToExpire(now)
  ) {
    state.tombstone(k, now);
    report.keys++;
    if (!tick()) break;
  }
  for (
    let t = going ? state.tombstoneAge.oldest : undefined;
    t !== undefined;
    t = state.tombstoneAge.oldest
  ) {
    if (now - t.tombstonedAt < tombstoneTtl) break;
    state.dropTombstone(t);
    report.tombstones++;
    if (!tick()) break;
  }

  if (policy.maxBatches !== undefined && report.batches >= policy.maxBatches) {
    report.complete = !hasWork(state, now, policy.terminalMaxAgeMs, tombstoneTtl, cutoff);
  }
  if (inBatch > 0) report.batches++;
  policy.onProgress?.({ ...report });
  return report;
}

/** Whether a purge with these ages would still find something to do. */
function hasWork(
  state: MemoryState,
  now: number,
  terminalMaxAge: number,
  tombstoneTtl: number,
  cutoff: number | undefined,
): boolean {
  const interrupted = state.interrupted.oldest;
  if (cutoff !== undefined && interrupted !== undefined && isAbandoned(interrupted.record, cutoff))
    return true;
  const finished = state.finished.oldest;
  if (finished !== undefined && now - finished.record.updatedAt >= terminalMaxAge) return true;
  if (state.nextKeyToExpire(now) !== undefined) return true;
  const tomb = state.tombstoneAge.oldest;
  return tomb !== undefined && now - tomb.tombstonedAt >= tombstoneTtl;
}
