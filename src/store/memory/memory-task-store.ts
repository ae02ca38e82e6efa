/**
 * The in-memory `TaskStore`: one process, no I/O, bounded. Every operation runs synchronously between awaits, so
 * each one is a single critical section: that is the whole atomicity argument (a claim's lookup and insert can
 * never interleave with another's). Unlike `@a2a-js/sdk`'s store it does not deep-copy on every load and save,
 * and it does not grow without limit: a cap on tasks, a TTL for terminal ones, and a cap on keys per tenant.
 */
import type { TaskPushNotificationConfig } from '../../protocol/requests.js';
import { isTerminalState } from '../../protocol/task-state.js';
import { systemClock, type Clock } from '../clock.js';
import type { KeyRecord, StoredEvent, StoredTask } from '../records.js';
import {
  DEFAULT_TOMBSTONE_TTL_MS,
  emptyPurgeReport,
  type PurgeReport,
  type RetentionPolicy,
} from '../retention.js';
import type { Scope } from '../scope.js';
import {
  liveKeyRecord,
  type ClaimKeyInput,
  type ClaimKeyResult,
  type CommitResult,
  type CreateTaskInput,
  type CreateTaskResult,
  type KeyClaim,
  type KeyClaimPolicy,
  type StoreCapabilities,
  type TaskPage,
  type TaskQuery,
  type TaskStore,
  type TaskWrite,
} from '../task-store.js';
import { keyRecordWith, LazyDigestKeyRecord } from './lazy-key-record.js';
import { eventsAfter, fromLogEntry, toLogEntry } from './memory-event-log.js';
import { pageOfTasks } from './memory-list.js';
import { addWaiter, MemoryPartition, removeWaiter, TaskEntry, wake } from './memory-partition.js';
import { TerminalQueue } from './terminal-queue.js';

/** Options of the in-memory store. */
export interface MemoryTaskStoreOptions {
  clock?: Clock;
  /** Most tasks kept at once, all scopes together (default 100,000). At the cap the oldest terminal is evicted. */
  maxTasks?: number;
  /** Terminal tasks are dropped this long after they finished (default 24 h). */
  terminalTaskTtlMs?: number;
  /** Tombstones are dropped this long after their key expired (default 7 days). */
  tombstoneTtlMs?: number;
  /** Entries examined per amortised sweep, run every 64 task creations or key claims (default 256). */
  sweepBudget?: number;
}

const DEFAULT_MAX_TASKS = 100_000;
const DEFAULT_TERMINAL_TTL_MS = 86_400_000;

/** In-memory TaskStore. */
export class MemoryTaskStore implements TaskStore {
  readonly capabilities: StoreCapabilities = { idempotency: true, sharedAcrossProcesses: false };
  readonly supportsIdempotency = true;

  readonly #clock: Clock;
  readonly #maxTasks: number;
  readonly #terminalTtlMs: number;
  readonly #tombstoneTtlMs: number;
  readonly #sweepBudget: number;
  readonly #partitions = new Map<string, MemoryPartition>();
  /** Keys held per tenant (live + tombstones), for the per-tenant cap. */
  readonly #keysPerTenant = new Map<string, number>();
  /** Terminal tasks in the order they finished: eviction and TTL take the oldest. */
  readonly #terminalOrder = new TerminalQueue<TaskEntry>();
  #taskCount = 0;
  #createsSinceSweep = 0;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    this.#maxTasks = options.maxTasks ?? DEFAULT_MAX_TASKS;
    this.#terminalTtlMs = options.terminalTaskTtlMs ?? DEFAULT_TERMINAL_TTL_MS;
    this.#tombstoneTtlMs = options.tombstoneTtlMs ?? DEFAULT_TOMBSTONE_TTL_MS;
    this.#sweepBudget = options.sweepBudget ?? 256;
  }

  /** Number of tasks held, all scopes together. */
  get taskCount(): number {
    return this.#taskCount;
  }

  /** Number of keys (live and tombstones) held for a tenant. */
  keyCount(tenant: string): number {
    return this.#keysPerTenant.get(tenant) ?? 0;
  }

  #partition(scope: Scope, create: true): MemoryPartition;
  #partition(scope: Scope, create: false): MemoryPartition | undefined;
  #partition(scope: Scope, create: boolean): MemoryPartition | undefined {
    const id = scope.tenant + '\u0000' + scope.owner;
    let p = this.#partitions.get(id);
    if (!p && create) {
      p = new MemoryPartition(id, scope.tenant);
      this.#partitions.set(id, p);
    }
    return p;
  }

  createTask(scope: Scope, input: CreateTaskInput): Promise<CreateTaskResult> {
    return Promise.resolve(this.#createTask(scope, input));
  }

  #createTask(scope: Scope, input: CreateTaskInput): CreateTaskResult {
    const now = this.#clock.now();
    if (++this.#createsSinceSweep >= 64) {
      this.#createsSinceSweep = 0;
      this.#sweep(now, this.#sweepBudget);
    }
    const p = this.#partition(scope, true);
    const claim = input.claim;
    if (claim) {
      const refused = this.#refuseClaim(p, claim.key, input, now);
      if (refused) return refused;
    }
    if (this.#taskCount >= this.#maxTasks && !this.#evictOldestTerminal()) return { outcome: 'full' };

    const record: StoredTask = {
      task: input.task,
      kind: 'task',
      fence: 1,
      seq: 0,
      createdAt: now,
      updatedAt: now,
    };
    const entry = new TaskEntry(record, p);
    for (const c of input.pushConfigs ?? []) if (c.id) (entry.pushConfigs ??= new Map()).set(c.id, c);
    p.tasks.set(input.task.id, entry);
    this.#taskCount++;
    if (claim) this.#putKey(p, claim, input.task.id, now);
    return { outcome: 'created', record };
  }

  claimKey(scope: Scope, input: ClaimKeyInput): Promise<ClaimKeyResult> {
    const now = this.#clock.now();
    // Claims grow the key index like creations do, so they drive the amortised sweep too.
    if (++this.#createsSinceSweep >= 64) {
      this.#createsSinceSweep = 0;
      this.#sweep(now, this.#sweepBudget);
    }
    const p = this.#partition(scope, true);
    const refused = this.#refuseClaim(p, input.claim.key, input, now);
    if (refused) return Promise.resolve(refused);
    return Promise.resolve({ outcome: 'claimed', key: this.#putKey(p, input.claim, input.taskId, now) });
  }

  /**
   * The claim check shared by `createTask` and `claimKey`: why `key` cannot be claimed now (held, expired, or
   * the tenant at its cap), or undefined when it can. An expired key whose task is gone becomes a tombstone on the
   * way, and `replace` drops the tombstone, whatever happens next (the memory store's only writes on refusal).
   */
  #refuseClaim(
    p: MemoryPartition,
    key: string,
    policy: KeyClaimPolicy,
    now: number,
  ): Exclude<ClaimKeyResult, { outcome: 'claimed' }> | undefined {
    const held = p.keys.get(key);
    if (held) {
      if (held.expiresAt > now || p.tasks.has(held.taskId)) return { outcome: 'held', key: held };
      this.#expireKey(p, held);
    }
    // Most partitions have no tombstones: skip hashing the key into an empty map.
    const tomb = p.tombstones.size > 0 ? p.tombstones.get(key) : undefined;
    if (tomb) {
      if ((policy.onExpiredKey ?? 'refuse') === 'refuse') return { outcome: 'expired', key: tomb };
      p.tombstones.delete(key);
      this.#countKey(p.tenant, -1);
    }
    const max = policy.maxKeysPerTenant;
    if (max !== undefined && this.keyCount(p.tenant) >= max) {
      // `p` is kept even if the sweep empties it: the new key (and task) are about to be written into it.
      this.#sweep(now, this.#sweepBudget * 4, p);
      if (this.keyCount(p.tenant) >= max) return { outcome: 'capacity' };
    }
    return undefined;
  }

  /** Writes a live key pointing at `taskId`; call only after `#refuseClaim` said yes, in the same tick. */
  #putKey(p: MemoryPartition, claim: KeyClaim, taskId: string, now: number): KeyRecord {
    const digest = claim.digest;
    const record: KeyRecord =
      typeof digest === 'string'
        ? liveKeyRecord(claim, digest, taskId, now)
        : new LazyDigestKeyRecord(claim.key, claim.messageId, taskId, now, claim.expiresAt, digest);
    p.keys.set(claim.key, record);
    this.#countKey(p.tenant, 1);
    return record;
  }

  getTask(scope: Scope, taskId: string): Promise<StoredTask | undefined> {
    const p = this.#partition(scope, false);
    const entry = p?.tasks.get(taskId);
    if (!p || !entry) return Promise.resolve(undefined);
    if (this.#pastTtl(entry.record, this.#clock.now())) {
      // The TTL holds on read too, not only when the amortised sweep happens to pass by.
      this.#removeTask(p, taskId, entry);
      return Promise.resolve(undefined);
    }
    return Promise.resolve(entry.record);
  }

  /** Whether a finished task has outlived the terminal TTL. */
  #pastTtl(r: StoredTask, now: number): boolean {
    return (
      (r.kind === 'message' || isTerminalState(r.task.status.state)) &&
      now - r.updatedAt >= this.#terminalTtlMs
    );
  }

  listTasks(scope: Scope, query: TaskQuery): Promise<TaskPage> {
    const now = this.#clock.now();
    const records = [...(this.#partition(scope, false)?.tasks.values() ?? [])]
      .map((e) => e.record)
      .filter((r) => r.kind === 'task' && !this.#pastTtl(r, now));
    try {
      return Promise.resolve(pageOfTasks(records, query));
    } catch (err) {
      // A bad token is a rejection like any other store error, never a synchronous throw.
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  commit(scope: Scope, taskId: string, write: TaskWrite): Promise<CommitResult> {
    const entry = this.#partition(scope, false)?.tasks.get(taskId);
    if (!entry) return Promise.resolve({ ok: false, current: undefined });
    const cur = entry.record;
    if (cur.fence !== write.expectFence || (write.expectSeq !== undefined && cur.seq !== write.expectSeq)) {
      return Promise.resolve({ ok: false, current: cur });
    }
    let seq = cur.seq;
    for (const event of write.events) {
      entry.events.push(toLogEntry(event, write.task));
      seq++;
    }
    const reply = write.reply ?? cur.reply;
    const kind = write.reply ? 'message' : cur.kind;
    const fence = write.nextFence ?? cur.fence;
    const updatedAt = this.#clock.now();
    // Two literals rather than a spread of `cond ? { reply } : {}`: no throwaway object on every commit.
    const record: StoredTask = reply
      ? { task: write.task, kind, reply, fence, seq, createdAt: cur.createdAt, updatedAt }
      : { task: write.task, kind, fence, seq, createdAt: cur.createdAt, updatedAt };
    entry.record = record;
    if (isTerminalState(write.task.status.state) || write.reply) this.#terminalOrder.push(entry);
    wake(entry);
    return Promise.resolve({ ok: true, record });
  }

  readEvents(scope: Scope, taskId: string, afterSeq: number): Promise<StoredEvent[]> {
    const entry = this.#partition(scope, false)?.tasks.get(taskId);
    return Promise.resolve(entry ? eventsAfter(entry.events, entry.record.task, afterSeq) : []);
  }

  async *watch(
    scope: Scope,
    taskId: string,
    afterSeq: number,
    signal: AbortSignal,
  ): AsyncIterable<StoredEvent> {
    let next = Math.max(0, afterSeq);
    // One abort listener per watch, not one per wait: EventTarget bookkeeping costs more than the wait itself.
    let wakeUp: (() => void) | undefined;
    const onAbort = () => wakeUp?.();
    signal.addEventListener('abort', onAbort, { once: true });
    let entry: TaskEntry | undefined;
    try {
      while (!signal.aborted) {
        entry = this.#partition(scope, false)?.tasks.get(taskId);
        if (!entry) return;
        while (next < entry.events.length) {
          const event = fromLogEntry(entry.events[next]!, entry.record.task);
          yield { seq: ++next, event };
          if (signal.aborted) return;
        }
        const waiting = entry;
        await new Promise<void>((resolve) => {
          wakeUp = resolve;
          addWaiter(waiting, resolve);
        });
        // Woken by a commit or by the abort: either way, out of the set.
        if (wakeUp) removeWaiter(waiting, wakeUp);
        wakeUp = undefined;
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      if (wakeUp && entry) removeWaiter(entry, wakeUp);
    }
  }

  nextRecord(
    scope: Scope,
    taskId: string,
    afterSeq: number,
    signal: AbortSignal,
    until?: (record: StoredTask) => boolean,
  ): Promise<StoredTask | undefined> {
    const entry = this.#partition(scope, false)?.tasks.get(taskId);
    if (!entry || signal.aborted) return Promise.resolve(undefined);
    const ready = (r: StoredTask) => r.seq > afterSeq && (until === undefined || until(r));
    if (ready(entry.record)) return Promise.resolve(entry.record);
    return new Promise((resolve) => {
      // One registration for the whole wait: a commit that does not make the record ready leaves it in place.
      const done = () => {
        const gone = this.#partition(scope, false)?.tasks.get(taskId) !== entry;
        if (!gone && !signal.aborted && !ready(entry.record)) return;
        removeWaiter(entry, done);
        signal.removeEventListener('abort', done);
        resolve(gone || signal.aborted ? undefined : entry.record);
      };
      addWaiter(entry, done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  getKey(scope: Scope, key: string): Promise<KeyRecord | undefined> {
    const p = this.#partition(scope, false);
    return Promise.resolve(p?.keys.get(key) ?? p?.tombstones.get(key));
  }

  releaseClaim(scope: Scope, taskId: string, key: string | undefined): Promise<boolean> {
    const p = this.#partition(scope, false);
    const entry = p?.tasks.get(taskId);
    if (!p || !entry || entry.record.fence !== 1 || entry.record.seq !== 0) return Promise.resolve(false);
    this.#removeTask(p, taskId, entry);
    if (key !== undefined && p.keys.get(key)?.taskId === taskId) {
      p.keys.delete(key);
      this.#countKey(p.tenant, -1);
    }
    return Promise.resolve(true);
  }

  releaseKey(scope: Scope, key: string, taskId: string, messageId: string): Promise<boolean> {
    const p = this.#partition(scope, false);
    const held = p?.keys.get(key);
    // Only live keys are in `keys` (tombstones live apart), so a tombstone is never released here.
    if (!p || !held || held.taskId !== taskId || held.messageId !== messageId) return Promise.resolve(false);
    p.keys.delete(key);
    this.#countKey(p.tenant, -1);
    if (p.isEmpty) this.#partitions.delete(p.scopeId);
    return Promise.resolve(true);
  }

  putPushConfig(scope: Scope, taskId: string, config: TaskPushNotificationConfig): Promise<void> {
    const entry = this.#partition(scope, false)?.tasks.get(taskId);
    if (entry && config.id) (entry.pushConfigs ??= new Map()).set(config.id, config);
    return Promise.resolve();
  }

  getPushConfig(scope: Scope, taskId: string, id: string): Promise<TaskPushNotificationConfig | undefined> {
    return Promise.resolve(this.#partition(scope, false)?.tasks.get(taskId)?.pushConfigs?.get(id));
  }

  listPushConfigs(scope: Scope, taskId: string): Promise<TaskPushNotificationConfig[]> {
    return Promise.resolve([
      ...(this.#partition(scope, false)?.tasks.get(taskId)?.pushConfigs?.values() ?? []),
    ]);
  }

  deletePushConfig(scope: Scope, taskId: string, id: string): Promise<boolean> {
    return Promise.resolve(
      this.#partition(scope, false)?.tasks.get(taskId)?.pushConfigs?.delete(id) ?? false,
    );
  }

  purgeExpired(policy: RetentionPolicy): Promise<PurgeReport> {
    const now = this.#clock.now();
    const report = emptyPurgeReport();
    const batchSize = Math.max(1, policy.batchSize ?? 1000);
    const tombstoneTtl = policy.tombstoneMaxAgeMs ?? this.#tombstoneTtlMs;
    let inBatch = 0;
    const tick = (): boolean => {
      if (++inBatch < batchSize) return true;
      inBatch = 0;
      report.batches++;
      policy.onProgress?.({ ...report });
      return policy.maxBatches === undefined || report.batches < policy.maxBatches;
    };
    outer: for (const p of [...this.#partitions.values()]) {
      for (const [id, entry] of [...p.tasks]) {
        const r = entry.record;
        const finished = isTerminalState(r.task.status.state) || r.kind === 'message';
        if (finished && now - r.updatedAt >= policy.terminalMaxAgeMs) {
          this.#removeTask(p, id, entry);
          report.tasks++;
          if (!tick()) break outer;
        }
      }
      for (const k of [...p.keys.values()]) {
        if (k.expiresAt <= now && !p.tasks.has(k.taskId)) {
          this.#expireKey(p, k);
          report.keys++;
          if (!tick()) break outer;
        }
      }
      for (const t of [...p.tombstones.values()]) {
        if (now - t.expiresAt >= tombstoneTtl) {
          p.tombstones.delete(t.key);
          this.#countKey(p.tenant, -1);
          report.tombstones++;
          if (!tick()) break outer;
        }
      }
      if (p.isEmpty) this.#partitions.delete(p.scopeId);
    }
    if (policy.maxBatches !== undefined && report.batches >= policy.maxBatches) {
      report.complete = !this.#hasPurgeable(now, policy.terminalMaxAgeMs, tombstoneTtl);
    }
    if (inBatch > 0) report.batches++;
    policy.onProgress?.({ ...report });
    return Promise.resolve(report);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  #hasPurgeable(now: number, terminalMaxAge: number, tombstoneTtl: number): boolean {
    for (const p of this.#partitions.values()) {
      for (const { record: r } of p.tasks.values()) {
        if (
          (isTerminalState(r.task.status.state) || r.kind === 'message') &&
          now - r.updatedAt >= terminalMaxAge
        )
          return true;
      }
      for (const k of p.keys.values()) if (k.expiresAt <= now && !p.tasks.has(k.taskId)) return true;
      for (const t of p.tombstones.values()) if (now - t.expiresAt >= tombstoneTtl) return true;
    }
    return false;
  }

  /** Bounded, amortised housekeeping: terminal TTL, key expiry, tombstone expiry. */
  #sweep(now: number, budget: number, keep?: MemoryPartition): void {
    let left = budget;
    for (let entry = this.#terminalOrder.oldest; entry; entry = this.#terminalOrder.oldest) {
      if (left-- <= 0 || now - entry.record.updatedAt < this.#terminalTtlMs) break;
      this.#removeTask(entry.partition, entry.record.task.id, entry);
    }
    for (const p of [...this.#partitions.values()]) {
      for (const k of p.keys.values()) {
        if (left-- <= 0 || k.expiresAt > now) break;
        if (!p.tasks.has(k.taskId)) this.#expireKey(p, k);
      }
      for (const t of p.tombstones.values()) {
        if (left-- <= 0 || now - t.expiresAt < this.#tombstoneTtlMs) break;
        p.tombstones.delete(t.key);
        this.#countKey(p.tenant, -1);
      }
      if (p.isEmpty && p !== keep) this.#partitions.delete(p.scopeId);
      if (left <= 0) return;
    }
  }

  #evictOldestTerminal(): boolean {
    const entry = this.#terminalOrder.oldest;
    if (!entry) return false;
    this.#removeTask(entry.partition, entry.record.task.id, entry);
    return true;
  }

  #removeTask(p: MemoryPartition, id: string, entry: TaskEntry): void {
    // Out of the queue first, even for an entry no longer mapped, so eviction and sweeps always make progress.
    this.#terminalOrder.remove(entry);
    if (p.tasks.get(id) !== entry) return;
    p.tasks.delete(id);
    this.#taskCount--;
    wake(entry);
  }

  #expireKey(p: MemoryPartition, k: KeyRecord): void {
    p.keys.delete(k.key);
    p.tombstones.set(k.key, keyRecordWith(k, { tombstone: true }));
  }

  #countKey(tenant: string, delta: number): void {
    const n = (this.#keysPerTenant.get(tenant) ?? 0) + delta;
    if (n <= 0) this.#keysPerTenant.delete(tenant);
    else this.#keysPerTenant.set(tenant, n);
  }
}
