/**
 * The in-memory store's data, and the only code that changes it: every task, key and tombstone sits in its
 * scope's partition AND in the store-wide structures that bound and age it (queues by time, counters, a scope's
 * listing). Keeping each change in one method here is what keeps those in step; `memory-task-store.ts` decides
 * what to change (the contract), `memory-retention.ts` when (sweeps and purges).
 *
 * Store-wide bounds (ADR 0026): tasks (`maxTasks`, the oldest finished one evicted at the cap), live keys
 * (`maxKeys`, refused at the cap) and tombstones (`maxTombstones`, the oldest dropped past it). A partition exists
 * only while it holds something, so scopes are bounded by those three as well.
 */
import type { Message, StreamResponse, Task } from '../../protocol/model.js';
import { isInterruptedState, isTerminalState } from '../../protocol/task-state.js';
import { abandonedTaskWrite } from '../abandon.js';
import type { StoredTask, TaskLease } from '../records.js';
import type { Scope } from '../scope.js';
import type { KeyClaim } from '../task-store.js';
import { toLogEntry } from './memory-event-log.js';
import { LiveKey, Tombstone } from './memory-keys.js';
import { ListedTasks } from './memory-list.js';
import { MemoryPartition, wake, type TaskEntry } from './memory-partition.js';
import { OrderedQueue } from './ordered-queue.js';

/** The bounds and ages the store applies on its own. */
export interface MemoryLimits {
  readonly maxTasks: number;
  readonly maxKeys: number;
  readonly maxTombstones: number;
  readonly terminalTtlMs: number;
  readonly tombstoneTtlMs: number;
}

/** Whether a record is done: a terminal task, or a direct reply (nothing more will be written to it). */
export function isFinished(r: StoredTask): boolean {
  return r.kind === 'message' || isTerminalState(r.task.status.state);
}

const updatedAtOf = (e: TaskEntry): number => e.record.updatedAt;

export class MemoryState {
  readonly partitions = new Map<string, MemoryPartition>();
  /** Finished tasks by last write: terminal TTL, retention and eviction at the cap take the oldest. */
  readonly finished = new OrderedQueue<TaskEntry>(updatedAtOf);
  /** Interrupted tasks by last write: retention ends the oldest once abandoned. */
  readonly interrupted = new OrderedQueue<TaskEntry>(updatedAtOf);
  /**
   * Running tasks (SUBMITTED, WORKING) that hold a worker lease, by lease expiry: recovery takes those whose
   * lease lapsed from the oldest end (ADR 0036). A task is in at most one of the three task queues.
   */
  readonly leased = new OrderedQueue<TaskEntry>((e) => e.record.lease?.expiresAt ?? Number.POSITIVE_INFINITY);
  /** Live keys by expiry. A key past it whose task still exists leaves the queue, parked on that task. */
  readonly keyExpiry = new OrderedQueue<LiveKey>((k) => k.expiresAt);
  /** Tombstones by the time they became tombstones: their age counts from there, never from `expiresAt`. */
  readonly tombstoneAge = new OrderedQueue<Tombstone>((t) => t.tombstonedAt);
  /** Tasks with a push config whose delivery may be behind the task's events (ADR 0045). */
  readonly pushPending = new Set<TaskEntry>();
  taskCount = 0;
  liveKeyCount = 0;
  /** Keys turned into tombstones so far (retention reports its own share as the difference). */
  tombstonesMade = 0;
  /** Tombstones dropped before their TTL because the store held `maxTombstones`. */
  tombstonesDroppedEarly = 0;

  constructor(readonly limits: MemoryLimits) {}

  partition(scope: Scope): MemoryPartition | undefined {
    return this.partitions.get(scope.tenant + '\u0000' + scope.owner);
  }

  /** The scope's partition, made if needed; `held` is returned as it is unless it was dropped meanwhile. */
  partitionFor(scope: Scope, held: MemoryPartition | undefined): MemoryPartition {
    if (held !== undefined && !held.dropped) return held;
    const id = scope.tenant + '\u0000' + scope.owner;
    let p = this.partitions.get(id);
    if (p === undefined) {
      p = new MemoryPartition(id, scope.tenant, scope.owner);
      this.partitions.set(id, p);
    }
    return p;
  }

  dropIfEmpty(p: MemoryPartition): void {
    if (!p.isEmpty || p.dropped) return;
    this.partitions.delete(p.scopeId);
    p.dropped = true;
  }

  /** Whether a finished record has outlived the terminal TTL (it is then gone for every reader). */
  isPastTtl(r: StoredTask, now: number): boolean {
    return isFinished(r) && now - r.updatedAt >= this.limits.terminalTtlMs;
  }

  /** At the task cap, evicts the oldest finished task; false when there is none to evict (all are active). */
  makeRoomForTask(now: number): boolean {
    if (this.taskCount < this.limits.maxTasks) return true;
    const oldest = this.finished.oldest;
    if (oldest === undefined) return false;
    this.removeTask(oldest, now);
    return true;
  }

  /** Adds a new entry (its record set) to its partition and to every index. */
  addTask(entry: TaskEntry): void {
    const p = entry.partition;
    (p.tasks ??= new Map()).set(entry.record.task.id, entry);
    this.taskCount++;
    if (entry.record.kind === 'task') (p.listed ??= new ListedTasks()).add(entry);
    this.#queueByState(entry);
  }

  /**
   * Applies a write that passed its fence check: new record (with the lease the write leaves), events appended,
   * indexes moved, followers woken.
   */
  applyWrite(
    entry: TaskEntry,
    task: Task,
    events: readonly StreamResponse[],
    fence: number,
    reply: Message | undefined,
    lease: TaskLease | undefined,
    now: number,
  ): StoredTask {
    const cur = entry.record;
    let seq = cur.seq;
    for (const event of events) {
      entry.events.push(toLogEntry(event, task));
      seq++;
    }
    const kind = reply ? 'message' : cur.kind;
    const record = storedTask(task, kind, reply ?? cur.reply, fence, seq, cur.createdAt, now, lease);
    this.#place(entry, record);
    // The outbox mark, in the same step as the events (ADR 0045): this task's webhooks have work.
    if (entry.pushCursors !== undefined && events.length > 0) this.pushPending.add(entry);
    wake(entry);
    return record;
  }

  /** Gives `entry` its next record and moves it in the listing and the queues accordingly. */
  #place(entry: TaskEntry, record: StoredTask): void {
    const cur = entry.record;
    const kind = record.kind;
    const p = entry.partition;
    if (cur.kind === 'task' && kind === 'task' && p.listed !== undefined) p.listed.update(entry, record);
    else {
      // A direct reply leaves the listing (ListTasks never shows one).
      if (cur.kind === 'task') p.listed?.remove(entry);
      entry.record = record;
      if (kind === 'task') (p.listed ??= new ListedTasks()).add(entry);
      else if (p.listed?.size === 0) p.listed = undefined;
    }
    this.#queueByState(entry);
  }

  /** Extends the lease of `entry` (not a write of the task: `updatedAt` and `seq` stay, nobody is woken). */
  renewLease(entry: TaskEntry, lease: TaskLease): void {
    const r = entry.record;
    this.#place(entry, storedTask(r.task, r.kind, r.reply, r.fence, r.seq, r.createdAt, r.updatedAt, lease));
  }

  /**
   * Ends an abandoned interrupted task with the shared write (fence + 1, one status event; ADR 0024). Its lease,
   * if it still carries one, stays as it is, as in the SQL stores: a finished task is never recovered anyway.
   */
  abandon(entry: TaskEntry, now: number): void {
    const { task, event } = abandonedTaskWrite(entry.record.task, now);
    const r = entry.record;
    this.applyWrite(entry, task, [event], r.fence + 1, undefined, r.lease, now);
  }

  #queueByState(entry: TaskEntry): void {
    const r = entry.record;
    if (isFinished(r)) this.finished.push(entry);
    else if (isInterruptedState(r.task.status.state)) this.interrupted.push(entry);
    else if (r.lease !== undefined) this.leased.push(entry);
    else entry.queue?.remove(entry);
  }

  /** Removes a task everywhere; keys parked on it (past their expiry) become tombstones now. */
  removeTask(entry: TaskEntry, now: number): void {
    // Out of its queue first, even for an entry no longer mapped, so eviction and sweeps always make progress.
    entry.queue?.remove(entry);
    const p = entry.partition;
    const id = entry.record.task.id;
    if (p.tasks?.get(id) !== entry) return;
    p.tasks.delete(id);
    if (p.tasks.size === 0) p.tasks = undefined;
    this.taskCount--;
    this.pushPending.delete(entry);
    if (entry.record.kind === 'task' && p.listed !== undefined) {
      p.listed.remove(entry);
      if (p.listed.size === 0) p.listed = undefined;
    }
    const parked = entry.parkedKeys;
    entry.parkedKeys = undefined;
    if (parked) for (const k of parked) if (k.parkedOn === entry) this.tombstone(k, now);
    wake(entry);
    this.dropIfEmpty(p);
  }

  /** Writes a live key pointing at `taskId`. */
  putKey(p: MemoryPartition, claim: KeyClaim, taskId: string, now: number): LiveKey {
    const k = new LiveKey(claim.key, claim.messageId, taskId, now, claim.expiresAt, claim.digest, p);
    (p.keys ??= new Map()).set(claim.key, k);
    this.keyExpiry.push(k);
    this.liveKeyCount++;
    return k;
  }

  /** Forgets a live key (released, or about to become a tombstone). Does not drop its partition. */
  deleteKey(k: LiveKey): void {
    const p = k.partition;
    if (p.keys?.get(k.key) !== k) return;
    p.keys.delete(k.key);
    if (p.keys.size === 0) p.keys = undefined;
    this.liveKeyCount--;
    this.keyExpiry.remove(k);
    const on = k.parkedOn;
    if (on === undefined) return;
    k.parkedOn = undefined;
    const list = on.parkedKeys;
    const i = list ? list.indexOf(k) : -1;
    if (i >= 0) list!.splice(i, 1);
    if (list?.length === 0) on.parkedKeys = undefined;
  }

  /** Turns an expired live key into a tombstone made `now`, then keeps the tombstone bound (oldest first). */
  tombstone(k: LiveKey, now: number): void {
    this.deleteKey(k);
    const p = k.partition;
    const had = p.tombstones?.get(k.key);
    if (had) this.dropTombstone(had);
    const t = new Tombstone(k.key, k.messageId, k.taskId, k.createdAt, k.expiresAt, now, p);
    (p.tombstones ??= new Map()).set(k.key, t);
    this.tombstoneAge.push(t);
    this.tombstonesMade++;
    while (this.tombstoneAge.size > this.limits.maxTombstones) {
      this.dropTombstone(this.tombstoneAge.oldest!);
      this.tombstonesDroppedEarly++;
    }
    this.dropIfEmpty(p);
  }

  dropTombstone(t: Tombstone): void {
    const p = t.partition;
    this.tombstoneAge.remove(t);
    if (p.tombstones?.get(t.key) !== t) return;
    p.tombstones.delete(t.key);
    if (p.tombstones.size === 0) p.tombstones = undefined;
    this.dropIfEmpty(p);
  }

  /**
   * The oldest key past its expiry whose task is gone, if any. Keys on the way whose task still exists are
   * parked on it, out of the queue, so they never stand in front of the others again (ADR 0025). At most `budget`
   * keys are looked at.
   */
  nextKeyToExpire(now: number, budget = Infinity): LiveKey | undefined {
    for (let n = 0; n < budget; n++) {
      const k = this.keyExpiry.oldest;
      if (k === undefined || k.expiresAt > now) return undefined;
      const entry = k.partition.tasks?.get(k.taskId);
      if (entry === undefined) return k;
      this.keyExpiry.remove(k);
      k.parkedOn = entry;
      (entry.parkedKeys ??= []).push(k);
    }
    return undefined;
  }

  /** Expires keys (see `nextKeyToExpire`), at most `budget` looked at, until `enough()` holds. */
  expireKeys(now: number, budget: number, enough?: () => boolean): void {
    let left = budget;
    while (left-- > 0 && enough?.() !== true) {
      const k = this.nextKeyToExpire(now, 1);
      if (k !== undefined) this.tombstone(k, now);
      else if (this.keyExpiry.oldest === undefined || this.keyExpiry.oldest.expiresAt > now) return;
    }
  }
}

/**
 * A stored record. Literals per combination rather than spreads of `cond ? { reply } : {}`: no throwaway object
 * on every commit, and a few fixed shapes (ADR 0023).
 */
export function storedTask(
  task: Task,
  kind: 'task' | 'message',
  reply: Message | undefined,
  fence: number,
  seq: number,
  createdAt: number,
  updatedAt: number,
  lease: TaskLease | undefined,
): StoredTask {
  if (lease === undefined) {
    return reply
      ? { task, kind, reply, fence, seq, createdAt, updatedAt }
      : { task, kind, fence, seq, createdAt, updatedAt };
  }
  return reply
    ? { task, kind, reply, fence, seq, createdAt, updatedAt, lease }
    : { task, kind, fence, seq, createdAt, updatedAt, lease };
}
