/**
 * Worker leases and durable steps in the in-memory store (docs/semantics.md §4, ADR 0036). The argument checks and
 * the JSON form of a step's result are the ones every store shares (`../sql/worker-lease.ts`,
 * `../sql/step-input.ts`), so all three backends refuse, record and hand back exactly the same things; a bad
 * argument throws a `StoreError` with code `BAD_ARGUMENT` before anything is written.
 *
 * Each function runs in one synchronous step, which is the memory store's whole atomicity argument: a step's
 * lookup, fence check and insert cannot interleave with a takeover's commit.
 */
import type { LapsedTask, LeaseCensus, StepRecord } from '../records.js';
import type { Scope } from '../scope.js';
import { stepRecord, stepResultText } from '../sql/step-input.js';
import { checkLimit, checkOwnerAndTtl } from '../sql/worker-lease.js';
import type { StepInput, StepResult } from '../task-store.js';
import type { MemoryState } from './memory-state.js';

/** Extends the lease to now + `ttlMs` if `owner` holds it under `fence`; false when the worker lost the task. */
export function renewLease(
  state: MemoryState,
  scope: Scope,
  taskId: string,
  fence: number,
  owner: string,
  ttlMs: number,
  now: number,
): boolean {
  checkOwnerAndTtl('renewLease', owner, ttlMs);
  const entry = state.partition(scope)?.tasks?.get(taskId);
  if (entry === undefined || entry.record.fence !== fence || entry.record.lease?.owner !== owner)
    return false;
  state.renewLease(entry, { owner, expiresAt: now + ttlMs });
  return true;
}

/** Running tasks whose lease lapsed at or before `now`, over every scope, oldest lapse first, at most `limit`. */
export function findLapsedLeases(state: MemoryState, limit: number, now: number): LapsedTask[] {
  checkLimit('findLapsedLeases', limit);
  const lapsed: LapsedTask[] = [];
  // The queue holds exactly the running tasks with a lease, by expiry: the walk stops at the first one still held.
  for (let e = state.leased.oldest; e !== undefined && lapsed.length < limit; e = e.newer) {
    const r = e.record;
    const lease = r.lease!;
    if (lease.expiresAt > now) break;
    const p = e.partition;
    lapsed.push({ tenant: p.tenant, owner: p.owner, taskId: r.task.id, fence: r.fence, lease, record: r });
  }
  return lapsed;
}

/** The running tasks whose lease has not lapsed as of `now`, and the first of their expiries. */
export function leaseCensus(state: MemoryState, now: number): LeaseCensus {
  let held = 0;
  let firstExpiresAt: number | undefined;
  // The queue is ordered by expiry: the first entry past `now` is the first lease to lapse.
  for (let e = state.leased.oldest; e !== undefined; e = e.newer) {
    const expiresAt = e.record.lease!.expiresAt;
    if (expiresAt <= now) continue;
    held++;
    firstExpiresAt ??= expiresAt;
  }
  return firstExpiresAt === undefined ? { held } : { held, firstExpiresAt };
}

/**
 * Records a step once per (task, name): an earlier record wins whatever the caller's fence (a resumed worker
 * reads what its predecessor recorded); otherwise only under the task's current fence.
 */
export function recordStep(
  state: MemoryState,
  scope: Scope,
  taskId: string,
  input: StepInput,
  now: number,
): StepResult {
  const text = stepResultText(input);
  const entry = state.partition(scope)?.tasks?.get(taskId);
  const earlier = entry?.steps?.get(input.name);
  if (earlier !== undefined) {
    return {
      outcome: 'exists',
      step: stepRecord(taskId, input.name, earlier.text, earlier.fence, earlier.recordedAt),
    };
  }
  if (entry === undefined || entry.record.fence !== input.fence) return { outcome: 'fenced' };
  (entry.steps ??= new Map()).set(input.name, { text, fence: input.fence, recordedAt: now });
  return { outcome: 'recorded', step: stepRecord(taskId, input.name, text, input.fence, now) };
}

/** The recorded step, parsed afresh: what a caller does with it never changes what is stored. */
export function getStep(
  state: MemoryState,
  scope: Scope,
  taskId: string,
  name: string,
): StepRecord | undefined {
  const step = state.partition(scope)?.tasks?.get(taskId)?.steps?.get(name);
  return step === undefined ? undefined : stepRecord(taskId, name, step.text, step.fence, step.recordedAt);
}
