/**
 * The in-memory `TaskStore`: one process, no I/O, bounded. Every operation runs synchronously between awaits, so
 * each one is a single critical section: that is the whole atomicity argument (a claim's lookup and insert can
 * never interleave with another's). Unlike `@a2a-js/sdk`'s store it does not deep-copy on every load and save,
 * and it does not grow without limit: tasks, live keys and tombstones are each bounded over the whole store
 * (ADR 0007, ADR 0026), whatever tenants and principals the requests name.
 *
 * This file is the contract; `memory-state.ts` holds the data and keeps its indexes in step, and
 * `memory-retention.ts` decides what the sweeps and purges delete.
 */
import * as attempts from './memory-step-attempts.js';
import type { StepAttemptInput, StepAttemptRecord, StepAttemptResult } from '../step-attempts.js';
import type { TaskPushNotificationConfig } from '../../protocol/requests.js';
import { isTerminalState } from '../../protocol/task-state.js';
import { systemClock, type Clock } from '../clock.js';
import type { KeyRecord, LapsedTask, LeaseCensus, StepRecord, StoredEvent, StoredTask } from '../records.js';
import type { PushDelivery, PushDeliveryState, PushOutcome } from '../push-delivery.js';
import { DEFAULT_TOMBSTONE_TTL_MS, type PurgeReport, type RetentionPolicy } from '../retention.js';
import type { Scope } from '../scope.js';
import { StoreError } from '../sql/store-error.js';
import { checkLeaseGrant, checkWriteId, leaseAfter, leaseAt } from '../sql/worker-lease.js';
import type {
  ClaimKeyInput,
  ClaimKeyResult,
  CommitResult,
  CreateTaskInput,
  CreateTaskResult,
  KeyClaimPolicy,
  StepInput,
  StepResult,
  StoreCapabilities,
  TaskPage,
  TaskQuery,
  TaskStore,
  TaskWrite,
} from '../task-store.js';
import { createdEarlier, refusedOrLanded } from '../task-store.js';
import { eventsAfter } from './memory-event-log.js';
import { nextRecordOf, watchEvents } from './memory-follow.js';
import * as leases from './memory-leases.js';
import { emptyPage } from './memory-list.js';
import { TaskEntry, type MemoryPartition } from './memory-partition.js';
import { claimDeliveries, deleteConfig, deliveryState, putConfig, recordDelivery } from './memory-push.js';
import { dropPastTtl, purge, sweep } from './memory-retention.js';
import { isFinished, MemoryState, storedTask } from './memory-state.js';

/** Options of the in-memory store. */
export interface MemoryTaskStoreOptions {
  clock?: Clock;
  /** Most tasks kept at once, all scopes together (default 100,000). At the cap the oldest finished is evicted. */
  maxTasks?: number;
  /**
   * Most live keys kept at once, all scopes together (default 1,000,000). At the bound a new key is refused
   * (`capacity`: the server answers 503 with Retry-After); keys free up as they expire with their tasks gone.
   */
  maxKeys?: number;
  /**
   * Most tombstones kept at once, all scopes together (default 1,000,000). Past the bound the oldest tombstone
   * is dropped before its TTL (ADR 0026).
   */
  maxTombstones?: number;
  /** Terminal tasks are dropped this long after they finished (default 24 h). */
  terminalTaskTtlMs?: number;
  /** Tombstones are dropped this long after they became tombstones (default 7 days). */
  tombstoneTtlMs?: number;
  /** Items of each kind examined per amortised sweep, run every 64 task creations or key claims (default 256). */
  sweepBudget?: number;
}

const DEFAULT_MAX_TASKS = 100_000;
const DEFAULT_MAX_KEYS = 1_000_000;
const DEFAULT_MAX_TOMBSTONES = 1_000_000;
const DEFAULT_TERMINAL_TTL_MS = 86_400_000;
/** Creations and claims between two amortised sweeps. */
const SWEEP_EVERY = 64;

type ClaimRefusal = Exclude<ClaimKeyResult, { outcome: 'claimed' }>;

/** In-memory TaskStore. */
export class MemoryTaskStore implements TaskStore {
  readonly capabilities: StoreCapabilities = { idempotency: true, sharedAcrossProcesses: false };
  readonly supportsIdempotency = true;

  readonly #clock: Clock;
  readonly #sweepBudget: number;
  readonly #state: MemoryState;
  #sinceSweep = 0;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#sweepBudget = options.sweepBudget ?? 256;
    this.#state = new MemoryState({
      maxTasks: options.maxTasks ?? DEFAULT_MAX_TASKS,
      maxKeys: options.maxKeys ?? DEFAULT_MAX_KEYS,
      maxTombstones: options.maxTombstones ?? DEFAULT_MAX_TOMBSTONES,
      terminalTtlMs: options.terminalTaskTtlMs ?? DEFAULT_TERMINAL_TTL_MS,
      tombstoneTtlMs: options.tombstoneTtlMs ?? DEFAULT_TOMBSTONE_TTL_MS,
    });
  }

  /** Number of tasks held, all scopes together. */
  get taskCount(): number {
    return this.#state.taskCount;
  }

  /** Number of live keys held, all scopes together (what `maxKeys` bounds). */
  get liveKeyCount(): number {
    return this.#state.liveKeyCount;
  }

  /** Number of tombstones held, all scopes together (what `maxTombstones` bounds). */
  get tombstoneCount(): number {
    return this.#state.tombstoneAge.size;
  }

  /** Tombstones dropped before their TTL because the store held `maxTombstones` of them. */
  get tombstonesDroppedEarly(): number {
    return this.#state.tombstonesDroppedEarly;
  }

  /** Number of scopes (tenant + principal) holding anything: a scope that holds nothing takes no memory. */
  get scopeCount(): number {
    return this.#state.partitions.size;
  }

  countLiveKeys(): Promise<number> {
    return Promise.resolve(this.#state.liveKeyCount);
  }

  /** Live keys one scope holds: what the server's per-scope cap (`maxKeysPerScope`) counts. */
  keyCount(scope: Scope): number {
    return this.#state.partition(scope)?.keys?.size ?? 0;
  }

  #maybeSweep(now: number): void {
    if (++this.#sinceSweep < SWEEP_EVERY) return;
    this.#sinceSweep = 0;
    sweep(this.#state, now, this.#sweepBudget);
  }

  createTask(scope: Scope, input: CreateTaskInput): Promise<CreateTaskResult> {
    // try/catch here rather than `settle`: no closure allocated on every send.
    try {
      return Promise.resolve(this.#createTask(scope, input));
    } catch (err) {
      return rejection(err);
    }
  }

  #createTask(scope: Scope, input: CreateTaskInput): CreateTaskResult {
    // Refusals that write nothing come first: a lease no store can honour, an id the scope already has.
    checkLeaseGrant('createTask', input.lease);
    const now = this.#clock.now();
    const state = this.#state;
    const id = input.task.id;
    let p = state.partition(scope);
    const same = p?.tasks?.get(id);
    if (same !== undefined) {
      if (!state.isPastTtl(same.record, now)) {
        // A retry of this very creation whose answer was lost (ADR 0052): it is there, and nothing is written.
        // A keyed creation wrote its key with the task, so the key must point at it too.
        const claim = input.claim;
        if (createdEarlier(input, same.record) && (!claim || p?.keys?.get(claim.key)?.taskId === id))
          return { outcome: 'created', record: same.record, landedEarlier: true };
        throw new StoreError('TASK_EXISTS', `task ${id} already exists in this scope`);
      }
      // Gone for every reader already, only not swept yet.
      state.removeTask(same, now);
    }
    this.#maybeSweep(now);
    const claim = input.claim;
    if (claim) {
      const refused = this.#refuseClaim(p, claim.key, input, now);
      if (refused) return refused;
    }
    if (!state.makeRoomForTask(now)) return { outcome: 'full' };
    // Looked up again: what ran above may have dropped the partition (emptied by an eviction or a sweep).
    p = state.partitionFor(scope, p);
    const lease = input.lease === undefined ? undefined : leaseAt(input.lease, now);
    const record = storedTask(input.task, 'task', undefined, 1, 0, now, now, lease);
    const entry = new TaskEntry(record, p);
    for (const c of input.pushConfigs ?? []) putConfig(state, entry, c);
    state.addTask(entry);
    if (claim) state.putKey(p, claim, id, now);
    return { outcome: 'created', record };
  }

  claimKey(scope: Scope, input: ClaimKeyInput): Promise<ClaimKeyResult> {
    const now = this.#clock.now();
    // Claims grow the key index like creations do, so they drive the amortised sweep too.
    this.#maybeSweep(now);
    let p = this.#state.partition(scope);
    const refused = this.#refuseClaim(p, input.claim.key, input, now);
    if (refused) return Promise.resolve(refused);
    p = this.#state.partitionFor(scope, p);
    const key = this.#state.putKey(p, input.claim, input.taskId, now).toRecord();
    return Promise.resolve({ outcome: 'claimed', key });
  }

  /**
   * The claim check shared by `createTask` and `claimKey`: why `key` cannot be claimed now (held, expired, or a
   * bound reached), or undefined when it can. An expired key whose task is gone becomes a tombstone on the way,
   * and `replace` drops the tombstone, whatever happens next (the memory store's only writes on refusal). Writes
   * nothing for a scope it has not seen: a refused request must not leave an empty partition behind.
   */
  #refuseClaim(
    p: MemoryPartition | undefined,
    key: string,
    policy: KeyClaimPolicy,
    now: number,
  ): ClaimRefusal | undefined {
    const state = this.#state;
    const held = p?.keys?.get(key);
    if (held) {
      if (held.expiresAt > now || p!.tasks?.has(held.taskId))
        return { outcome: 'held', key: held.toRecord() };
      state.tombstone(held, now);
    }
    const tomb = p?.tombstones?.get(key);
    if (tomb) {
      if ((policy.onExpiredKey ?? 'refuse') === 'refuse') return { outcome: 'expired', key: tomb.toRecord() };
      state.dropTombstone(tomb);
    }
    // Both bounds count live keys only. At a bound, keys past their expiry (task gone) are tombstoned first,
    // oldest first, as many as it takes: each key is expired once, so this is amortised over the claims.
    // (The closures are made only at a bound: not on every keyed send.)
    const max = policy.maxKeysPerScope;
    if (max !== undefined && (p?.keys?.size ?? 0) >= max) {
      const inScope = () => p?.keys?.size ?? 0;
      state.expireKeys(now, Infinity, () => inScope() < max);
      if (inScope() >= max) return { outcome: 'capacity' };
    }
    const maxKeys = state.limits.maxKeys;
    if (state.liveKeyCount >= maxKeys) {
      state.expireKeys(now, Infinity, () => state.liveKeyCount < maxKeys);
      if (state.liveKeyCount >= maxKeys) return { outcome: 'capacity' };
    }
    return undefined;
  }

  getTask(scope: Scope, taskId: string): Promise<StoredTask | undefined> {
    const entry = this.#state.partition(scope)?.tasks?.get(taskId);
    if (!entry) return Promise.resolve(undefined);
    const now = this.#clock.now();
    if (this.#state.isPastTtl(entry.record, now)) {
      // The TTL holds on read too, not only when the amortised sweep happens to pass by.
      this.#state.removeTask(entry, now);
      return Promise.resolve(undefined);
    }
    return Promise.resolve(entry.record);
  }

  listTasks(scope: Scope, query: TaskQuery): Promise<TaskPage> {
    // Everything past the terminal TTL goes first (oldest first, each task once over the store's life), so
    // whatever the listing holds is visible and `totalSize` needs no filtering.
    dropPastTtl(this.#state, this.#clock.now());
    const listed = this.#state.partition(scope)?.listed;
    return settle(() => (listed ? listed.page(query) : emptyPage(query)));
  }

  commit(scope: Scope, taskId: string, write: TaskWrite): Promise<CommitResult> {
    try {
      return Promise.resolve(this.#commit(scope, taskId, write));
    } catch (err) {
      return rejection(err);
    }
  }

  #commit(scope: Scope, taskId: string, write: TaskWrite): CommitResult {
    checkLeaseGrant('commit', write.lease);
    const entry = this.#state.partition(scope)?.tasks?.get(taskId);
    if (!entry) return { ok: false, current: undefined };
    const cur = entry.record;
    const writeId = checkWriteId(write.writeId);
    if (
      cur.fence !== write.expectFence ||
      (write.expectSeq !== undefined && cur.seq !== write.expectSeq) ||
      // Its own earlier attempt landed (ADR 0052), or the task is finished: it takes no further write.
      (writeId !== undefined && entry.lastWriteId === writeId) ||
      isFinished(cur)
    ) {
      return refusedOrLanded(write, cur, entry.lastWriteId);
    }
    const now = this.#clock.now();
    const fence = write.nextFence ?? cur.fence;
    const lease = leaseAfter(cur.lease, write.lease, now);
    entry.lastWriteId = writeId;
    return {
      ok: true,
      record: this.#state.applyWrite(entry, write.task, write.events, fence, write.reply, lease, now),
    };
  }

  readEvents(scope: Scope, taskId: string, afterSeq: number): Promise<StoredEvent[]> {
    const entry = this.#state.partition(scope)?.tasks?.get(taskId);
    return Promise.resolve(entry ? eventsAfter(entry.events, entry.record.task, afterSeq) : []);
  }

  watch(scope: Scope, taskId: string, afterSeq: number, signal: AbortSignal): AsyncIterable<StoredEvent> {
    return watchEvents(this.#state, scope, taskId, afterSeq, signal);
  }

  nextRecord(
    scope: Scope,
    taskId: string,
    afterSeq: number,
    signal: AbortSignal,
    until?: (record: StoredTask) => boolean,
  ): Promise<StoredTask | undefined> {
    return nextRecordOf(this.#state, scope, taskId, afterSeq, signal, until);
  }

  getKey(scope: Scope, key: string): Promise<KeyRecord | undefined> {
    const p = this.#state.partition(scope);
    return Promise.resolve((p?.keys?.get(key) ?? p?.tombstones?.get(key))?.toRecord());
  }

  releaseClaim(scope: Scope, taskId: string, key: string | undefined): Promise<boolean> {
    const state = this.#state;
    const p = state.partition(scope);
    const entry = p?.tasks?.get(taskId);
    if (!p || !entry || entry.record.fence !== 1 || entry.record.seq !== 0) return Promise.resolve(false);
    const held = key === undefined ? undefined : p.keys?.get(key);
    // The key first: removing the task could otherwise drop the partition while the key is still in it.
    if (held?.taskId === taskId) state.deleteKey(held);
    state.removeTask(entry, this.#clock.now());
    state.dropIfEmpty(p);
    return Promise.resolve(true);
  }

  releaseKey(scope: Scope, key: string, taskId: string, messageId: string): Promise<boolean> {
    const p = this.#state.partition(scope);
    const held = p?.keys?.get(key);
    // Only live keys are in `keys` (tombstones live apart), so a tombstone is never released here.
    if (!p || !held || held.taskId !== taskId || held.messageId !== messageId) return Promise.resolve(false);
    this.#state.deleteKey(held);
    this.#state.dropIfEmpty(p);
    return Promise.resolve(true);
  }

  putPushConfig(scope: Scope, taskId: string, config: TaskPushNotificationConfig): Promise<void> {
    const entry = this.#state.partition(scope)?.tasks?.get(taskId);
    if (entry) putConfig(this.#state, entry, config);
    return Promise.resolve();
  }

  getPushConfig(scope: Scope, taskId: string, id: string): Promise<TaskPushNotificationConfig | undefined> {
    return Promise.resolve(this.#state.partition(scope)?.tasks?.get(taskId)?.pushConfigs?.get(id));
  }

  listPushConfigs(scope: Scope, taskId: string): Promise<TaskPushNotificationConfig[]> {
    return Promise.resolve([
      ...(this.#state.partition(scope)?.tasks?.get(taskId)?.pushConfigs?.values() ?? []),
    ]);
  }

  deletePushConfig(scope: Scope, taskId: string, id: string): Promise<boolean> {
    return Promise.resolve(deleteConfig(this.#state.partition(scope)?.tasks?.get(taskId), id));
  }

  claimPushDeliveries(holder: string, claimMs: number, limit: number): Promise<PushDelivery[]> {
    return settle(() => claimDeliveries(this.#state, holder, claimMs, limit, this.#clock.now()));
  }

  recordPushDelivery(
    scope: Scope,
    taskId: string,
    configId: string,
    holder: string,
    outcome: PushOutcome,
  ): Promise<boolean> {
    return settle(() =>
      recordDelivery(this.#state, scope, taskId, configId, holder, outcome, this.#clock.now()),
    );
  }

  getPushDelivery(scope: Scope, taskId: string, configId: string): Promise<PushDeliveryState | undefined> {
    return Promise.resolve(deliveryState(this.#state, scope, taskId, configId));
  }

  purgeExpired(policy: RetentionPolicy): Promise<PurgeReport> {
    return Promise.resolve(purge(this.#state, policy, this.#clock.now()));
  }

  renewLease(scope: Scope, taskId: string, fence: number, owner: string, ttlMs: number): Promise<boolean> {
    return settle(() =>
      leases.renewLease(this.#state, scope, taskId, fence, owner, ttlMs, this.#clock.now()),
    );
  }

  findLapsedLeases(limit: number): Promise<LapsedTask[]> {
    return settle(() => leases.findLapsedLeases(this.#state, limit, this.#clock.now()));
  }

  leaseCensus(): Promise<LeaseCensus> {
    return settle(() => leases.leaseCensus(this.#state, this.#clock.now()));
  }

  recordStep(scope: Scope, taskId: string, input: StepInput): Promise<StepResult> {
    return settle(() => leases.recordStep(this.#state, scope, taskId, input, this.#clock.now()));
  }

  getStep(scope: Scope, taskId: string, name: string): Promise<StepRecord | undefined> {
    return Promise.resolve(leases.getStep(this.#state, scope, taskId, name));
  }

  writeStepAttempt(scope: Scope, taskId: string, input: StepAttemptInput): Promise<StepAttemptResult> {
    return settle(() => attempts.writeStepAttempt(this.#state, scope, taskId, input, this.#clock.now()));
  }

  getStepAttempt(scope: Scope, taskId: string, name: string): Promise<StepAttemptRecord | undefined> {
    return Promise.resolve(attempts.getStepAttempt(this.#state, scope, taskId, name));
  }

  recordParentRenewal(scope: Scope, taskId: string): Promise<boolean> {
    const entry = this.#state.partition(scope)?.tasks?.get(taskId);
    if (
      entry === undefined ||
      entry.record.kind !== 'task' ||
      isTerminalState(entry.record.task.status.state)
    )
      return Promise.resolve(false);
    entry.parentRenewedAt = this.#clock.now();
    return Promise.resolve(true);
  }

  lastParentRenewal(scope: Scope, taskId: string): Promise<number | undefined> {
    return Promise.resolve(this.#state.partition(scope)?.tasks?.get(taskId)?.parentRenewedAt);
  }

  /** One process uses a memory store, so whoever asks leads. */
  tryLead(_role: string, _holder: string, _ttlMs: number): Promise<boolean> {
    return Promise.resolve(true);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Runs `f` now; what it throws (a bad page token, a bad argument) is a rejection, never a synchronous throw. */
function settle<T>(f: () => T): Promise<T> {
  try {
    return Promise.resolve(f());
  } catch (err) {
    return rejection(err);
  }
}

function rejection(err: unknown): Promise<never> {
  return Promise.reject(err instanceof Error ? err : new Error(String(err)));
}
