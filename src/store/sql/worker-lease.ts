/**
 * Worker leases on tasks (docs/semantics.md §4, ADR 0036), the part every store shares: which states a lease
 * keeps a task recoverable in, the lease a grant gives at a given instant, and the checks of arguments a store
 * cannot honour. A lease is stored as `now + ttlMs` in an integer column, so a TTL that is not a positive whole
 * number of ms, or an owner no worker could be, is refused up front with a structured error, never stored.
 */
import type { TaskState } from '../../protocol/task-state.js';
import type { TaskLease } from '../records.js';
import { MAX_WRITE_ID_LENGTH, type LeaseGrant } from '../task-store.js';
import { StoreError } from './store-error.js';

/**
 * The states in which a task's worker is running its turn: a lapsed lease in one of them means the worker was lost.
 * An interrupted task waits for its client and a terminal one for nobody, whatever lease they still carry.
 */
export const RUNNING_STATES: readonly TaskState[] = ['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING'];

/** Whether a task in `state` is running a turn (its lease, if any, counts). */
export function isRunningState(state: TaskState): boolean {
  return state === 'TASK_STATE_SUBMITTED' || state === 'TASK_STATE_WORKING';
}

/** Longest worker name, in UTF-16 units: it goes into an indexed column, and a name is a label, not data. */
export const MAX_LEASE_OWNER_LENGTH = 512;

/** The lease `grant` gives at `now`. */
export function leaseAt(grant: LeaseGrant, now: number): TaskLease {
  return { owner: grant.owner, expiresAt: now + grant.ttlMs };
}

/** The lease a write leaves: the grant's, none for `null`, the current one when the write says nothing. */
export function leaseAfter(
  current: TaskLease | undefined,
  grant: LeaseGrant | null | undefined,
  now: number,
): TaskLease | undefined {
  if (grant === undefined) return current;
  return grant === null ? undefined : leaseAt(grant, now);
}

/** Throws `BAD_ARGUMENT` for a grant no store can honour (checked before anything is written). */
export function checkLeaseGrant(method: string, grant: LeaseGrant | null | undefined): void {
  if (grant === undefined || grant === null) return;
  checkOwnerAndTtl(method, grant.owner, grant.ttlMs);
}

/** Throws `BAD_ARGUMENT` unless `owner` names a worker and `ttlMs` is a positive whole number of ms. */
export function checkOwnerAndTtl(method: string, owner: unknown, ttlMs: unknown): void {
  const bad = ownerProblem(owner);
  if (bad) throw new StoreError('BAD_ARGUMENT', `${method}: the lease owner ${bad}`);
  if (typeof ttlMs !== 'number' || !Number.isSafeInteger(ttlMs) || ttlMs <= 0) {
    throw new StoreError(
      'BAD_ARGUMENT',
      `${method}: the lease ttlMs must be a positive whole number of ms, got ${String(ttlMs)}`,
    );
  }
}

/** Throws `BAD_ARGUMENT` unless `fence` is a fencing token a store could have issued (a positive integer). */
export function checkFence(method: string, fence: unknown): void {
  if (typeof fence !== 'number' || !Number.isSafeInteger(fence) || fence < 1) {
    throw new StoreError('BAD_ARGUMENT', `${method}: fence must be a positive integer, got ${String(fence)}`);
  }
}

/** Throws `BAD_ARGUMENT` unless `limit` is a whole number (0 lists nothing). */
export function checkLimit(method: string, limit: unknown): void {
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 0) {
    throw new StoreError('BAD_ARGUMENT', `${method}: limit must be a whole number, got ${String(limit)}`);
  }
}

/**
 * Why `name` cannot be stored as a text key, or undefined: empty, too long, a NUL (PostgreSQL text cannot hold
 * one) or a lone surrogate (it has no UTF-8 form: drivers would replace it, and two names would become one).
 */
export function textKeyProblem(name: unknown, maxLength: number): string | undefined {
  if (typeof name !== 'string' || name === '') return 'must be a non-empty string';
  if (name.length > maxLength) return `must be at most ${maxLength} characters long`;
  if (name.includes('\u0000')) return 'must not contain NUL';
  if (/[\uD800-\uDFFF]/u.test(name)) return 'must be well-formed Unicode (it has a lone surrogate)';
  return undefined;
}

function ownerProblem(owner: unknown): string | undefined {
  return textKeyProblem(owner, MAX_LEASE_OWNER_LENGTH);
}

/** Throws `BAD_ARGUMENT` unless `writeId` is absent or a non-empty string a store can keep (ADR 0052). */
export function checkWriteId(writeId: unknown): string | undefined {
  if (writeId === undefined) return undefined;
  if (typeof writeId !== 'string' || writeId === '' || writeId.length > MAX_WRITE_ID_LENGTH) {
    throw new StoreError(
      'BAD_ARGUMENT',
      `commit: writeId must be a non-empty string of at most ${MAX_WRITE_ID_LENGTH} characters`,
    );
  }
  return writeId;
}
