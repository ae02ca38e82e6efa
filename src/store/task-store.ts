/**
 * The `TaskStore` contract: the real dedup mechanism (ADR 0001). Atomicity lives
 * here, never in a process-local lock alone, because server replicas share the store. Every backend (memory,
 * SQLite, PostgreSQL, Redis) implements this one interface and passes one contract suite (test/store-contract/).
 *
 * Conventions for every method:
 * - All methods act inside one `Scope` (tenant + owner); nothing crosses scopes.
 * - Records returned are snapshots to be treated as immutable.
 * - Times come from the store's `Clock`.
 */
import type { SchemaStatus } from './sql/migration.js';
import type { Message, StreamResponse, Task } from '../protocol/model.js';
import type { TaskPushNotificationConfig } from '../protocol/requests.js';
import type { TaskState } from '../protocol/task-state.js';
import type { KeyRecord, LapsedTask, LeaseCensus, StepRecord, StoredEvent, StoredTask } from './records.js';
import type { StepAttemptInput, StepAttemptRecord, StepAttemptResult } from './step-attempts.js';
import type { PushDelivery, PushDeliveryState, PushOutcome } from './push-delivery.js';
import type { PurgeReport, RetentionPolicy } from './retention.js';
import type { Scope } from './scope.js';

/** What a backend can do. Nothing is silently skipped: the server refuses what the store cannot honour. */
export interface StoreCapabilities {
  /** Atomic key claims: the server advertises the idempotency extension exactly when this is true. */
  readonly idempotency: boolean;
  /** Several processes can share this store safely (SQLite file, PostgreSQL, Redis); false for memory. */
  readonly sharedAcrossProcesses: boolean;
  /**
   * Keys live on disk, bounded by retention rather than by memory (SQLite, PostgreSQL). The server then sets no
   * per-scope key cap unless asked to (ADR 0047); a store that leaves this out is treated as memory-bound.
   */
  readonly keysOnDisk?: boolean;
}

/** A key claim made together with task creation. */
export interface KeyClaim {
  readonly key: string;
  readonly messageId: string;
  /**
   * Digest of the claiming message, or a function computing it: it is read only when a later send presents the
   * same key, so a store that keeps records in memory may defer it; stores that persist it call it at once
   * (`claimDigest`).
   */
  readonly digest: string | (() => string);
  /** Epoch ms from which the key may expire (it never expires while its task exists). */
  readonly expiresAt: number;
}

/** The digest of a claim, computing it if it was deferred. */
export function claimDigest(claim: KeyClaim): string {
  return typeof claim.digest === 'string' ? claim.digest : claim.digest();
}

/** The live key record a successful claim writes. */
export function liveKeyRecord(claim: KeyClaim, digest: string, taskId: string, createdAt: number): KeyRecord {
  return {
    key: claim.key,
    messageId: claim.messageId,
    digest,
    taskId,
    createdAt,
    expiresAt: claim.expiresAt,
    tombstone: false,
  };
}

/** Input of `createTask`. */
export interface CreateTaskInput {
  /** The new task: SUBMITTED, its history holding the user message. */
  readonly task: Task;
  /** The idempotency key to claim in the same atomic step, if the send is keyed. */
  readonly claim?: KeyClaim;
  /** Push configs registered inline with the send (ids assigned), stored in the same atomic step. */
  readonly pushConfigs?: readonly TaskPushNotificationConfig[];
  /** The worker lease the new task starts with (its first turn is about to run), in the same atomic step. */
  readonly lease?: LeaseGrant;
  /**
   * Refuse a new key when the scope (tenant + principal) already holds this many LIVE keys (default: no limit).
   * Tombstones never count: they are bounded on their own (retention, or the memory store's own bound), so a
   * caller's expired keys cannot lock it out, and one principal's keys never count against another's.
   */
  readonly maxKeysPerScope?: number;
  /**
   * What to do with a key that has expired (a tombstone, its task gone): `refuse` reports `expired`
   * (docs/semantics.md §2 default); `replace` claims it afresh, treating the send as new (a2a-rust's behaviour).
   */
  readonly onExpiredKey?: 'refuse' | 'replace';
}

/** Result of `createTask`. Only `created` wrote anything. */
export type CreateTaskResult =
  /**
   * The task is stored. `landedEarlier`: by an earlier application of this very input whose answer was lost (the
   * caller retried it): the task id is minted per send, so a key or a task already holding it can only come from
   * that earlier application, and `record` is the task as it stands now (docs/semantics.md §4 "Lost answers").
   */
  | { readonly outcome: 'created'; readonly record: StoredTask; readonly landedEarlier?: boolean }
  /** The key is live and held (by this message or another): the caller decides replay or conflict. */
  | { readonly outcome: 'held'; readonly key: KeyRecord }
  /** The key exists only as a tombstone: it expired, and `onExpiredKey` was `refuse`. */
  | { readonly outcome: 'expired'; readonly key: KeyRecord }
  /** The tenant's key index is full; nothing was written. */
  | { readonly outcome: 'capacity' }
  /** The store's own task capacity is exhausted (bounded in-memory store); nothing was written. */
  | { readonly outcome: 'full' };

/** What every key claim honours, whether it comes with a new task (`createTask`) or for an existing one (`claimKey`). */
export type KeyClaimPolicy = Pick<CreateTaskInput, 'maxKeysPerScope' | 'onExpiredKey'>;

/** Input of `claimKey`: a key for a task that already exists (a keyed continuation). */
export interface ClaimKeyInput {
  readonly claim: KeyClaim;
  /** The existing task the key will point at. The store does not check it exists: the caller just read it. */
  readonly taskId: string;
  /**
   * Refuse a new key when the scope (tenant + principal) already holds this many LIVE keys (default: no limit).
   * Tombstones never count: they are bounded on their own (retention, or the memory store's own bound), so a
   * caller's expired keys cannot lock it out, and one principal's keys never count against another's.
   */
  readonly maxKeysPerScope?: number;
  /** As in `CreateTaskInput`: `refuse` (default) reports a tombstone as `expired`, `replace` claims it afresh. */
  readonly onExpiredKey?: 'refuse' | 'replace';
}

/** Result of `claimKey`. Only `claimed` wrote anything. */
export type ClaimKeyResult =
  /** The key is now ours, pointing at `taskId`. */
  | { readonly outcome: 'claimed'; readonly key: KeyRecord }
  /** The key is live and held (by this message or another): the caller decides replay or conflict. */
  | { readonly outcome: 'held'; readonly key: KeyRecord }
  /** The key exists only as a tombstone: it expired, and `onExpiredKey` was `refuse`. */
  | { readonly outcome: 'expired'; readonly key: KeyRecord }
  /** The tenant's key index is full; nothing was written. */
  | { readonly outcome: 'capacity' };

/** A fenced write: a compare-and-set on the task's fence (and optionally its exact version). */
export interface TaskWrite {
  /** The fence the writer holds. The write applies only if the stored fence equals it. */
  readonly expectFence: number;
  /** Also require the stored event sequence to equal this (the exact version the writer read). */
  readonly expectSeq?: number;
  /** The fence after the write: `expectFence` for an ordinary write, higher to take the task over. */
  readonly nextFence?: number;
  /** The task's complete new state. */
  readonly task: Task;
  /** Events to append, in order; each gets the next sequence number. */
  readonly events: readonly StreamResponse[];
  /** Marks the record as a direct-message outcome carrying this reply. */
  readonly reply?: Message;
  /**
   * Names this write, the same on every attempt of it (docs/semantics.md §4 "Lost answers", ADR 0052). The store
   * keeps the id of the last write applied to the task, and applies a write only if that id is not its own: a
   * retry of a write that landed though its answer was lost (a connection cut after COMMIT, a group commit's
   * fallback) is answered as landed (`landedEarlier`) and never applied twice. Unique per process and task write;
   * at most 128 characters.
   */
  readonly writeId?: string;
  /**
   * The lease after the write: a grant sets it (a new turn, a takeover) to `owner` until now + `ttlMs`; `null`
   * clears it (the turn ended: interrupted or finished); left out, the lease is unchanged.
   */
  readonly lease?: LeaseGrant | null;
}

/** A lease to set: held by `owner` for `ttlMs` from the store's now. */
export interface LeaseGrant {
  readonly owner: string;
  readonly ttlMs: number;
}

/** Input of `recordStep`. */
export interface StepInput {
  readonly name: string;
  /** The fence the recording worker holds: the step is recorded only while the task's fence equals it. */
  readonly fence: number;
  /** A JSON value (already checked for size by the caller). */
  readonly result: unknown;
}

/** Result of `recordStep`. Only `recorded` wrote anything. */
export type StepResult =
  | { readonly outcome: 'recorded'; readonly step: StepRecord }
  /** A step of that name was recorded before (by this turn or an earlier one): its result wins. */
  | { readonly outcome: 'exists'; readonly step: StepRecord }
  /** The task's fence moved on (or the task is gone): the writer is stale. */
  | { readonly outcome: 'fenced' };

/** Result of `commit`. */
export type CommitResult =
  /**
   * Applied; `landedEarlier` when an earlier attempt of this write (same `writeId`) was applied and its answer
   * lost: nothing was applied now, and `record` is the task as it stands.
   */
  | { readonly ok: true; readonly record: StoredTask; readonly landedEarlier?: boolean }
  /** The fence or version moved (or the task is gone): the writer is stale and must stop. */
  | { readonly ok: false; readonly current: StoredTask | undefined };

/** ListTasks query, already validated. */
export interface TaskQuery {
  readonly contextId?: string;
  readonly status?: TaskState;
  /** Canonical ISO timestamp; tasks whose status timestamp is at or after it. */
  readonly statusTimestampAfter?: string;
  readonly pageSize: number;
  /** Opaque cursor from a previous page. An invalid token throws InvalidParamsError. */
  readonly pageToken?: string;
}

/** A page of tasks, newest status timestamp first (ties by id, descending). */
export interface TaskPage {
  readonly records: readonly StoredTask[];
  /** '' on the last page. */
  readonly nextPageToken: string;
  /** Matching tasks before paging. */
  readonly totalSize: number;
}

/** The store contract. See each method for the atomicity it promises. */
export interface TaskStore {
  readonly capabilities: StoreCapabilities;
  /** Shorthand for `capabilities.idempotency`. */
  readonly supportsIdempotency: boolean;

  /**
   * Atomically: claim `claim.key` (insert-if-absent within the scope's tenant+owner), insert the task with fence 1
   * and seq 0, and store `pushConfigs`. Either all of it happens or none. Of any number of racing calls with the
   * same key, across processes sharing the store, exactly one gets `created`; the rest get `held`.
   */
  createTask(scope: Scope, input: CreateTaskInput): Promise<CreateTaskResult>;

  /**
   * Claims `claim.key` for the existing task `taskId` (insert-if-absent, same liveness/tombstone/capacity rules
   * as `createTask`). Of racing calls with one key exactly one gets `claimed`. Does not touch the task.
   */
  claimKey(scope: Scope, input: ClaimKeyInput): Promise<ClaimKeyResult>;

  /** The task record (of either kind), or undefined. */
  getTask(scope: Scope, taskId: string): Promise<StoredTask | undefined>;

  /** Task-kind records matching the query, newest first, cursor-paged. */
  listTasks(scope: Scope, query: TaskQuery): Promise<TaskPage>;

  /**
   * Compare-and-set: applies `write` only if the stored fence equals `expectFence` (and the seq equals
   * `expectSeq` when given), the task is not terminal (a finished task takes no further write, so never a second
   * terminal event), and the task's last applied write is not `write.writeId`; then appends its events with
   * consecutive sequence numbers, in one atomic step. Of concurrent writes expecting the same fence and seq,
   * exactly one succeeds. A write whose `writeId` is the task's last applied write is answered
   * `{ ok: true, landedEarlier: true }` with the record as it stands, applying nothing.
   */
  commit(scope: Scope, taskId: string, write: TaskWrite): Promise<CommitResult>;

  /** Events with `seq > afterSeq`, in order. */
  readEvents(scope: Scope, taskId: string, afterSeq: number): Promise<StoredEvent[]>;

  /**
   * Events with `seq > afterSeq` as they are committed, in order, without gaps or duplicates, from any process
   * sharing the store, until `signal` aborts or the consumer stops iterating.
   */
  watch(scope: Scope, taskId: string, afterSeq: number, signal: AbortSignal): AsyncIterable<StoredEvent>;

  /**
   * Optional fast path for blocking waits in this process: resolves with the task's record as soon as its `seq`
   * is past `afterSeq` and `until` (when given) holds for it, at once if that is already so; with `undefined`
   * when `signal` aborts or the task is gone. A blocking wait only needs the latest record, not the events, so
   * this lets a store wake a waiter once, without building events for it. The server uses it when present and
   * `watch` otherwise; a store that cannot wake in-process waiters should leave it out.
   * `fresh` says the caller's record at `afterSeq` was written by this process a moment ago (a task it just
   * created): a store whose reads cost a round trip may then skip its first read, and rely on its in-process
   * wake-ups and its polling to see what comes after (a commit it missed is seen one poll later, never lost).
   */
  nextRecord?(
    scope: Scope,
    taskId: string,
    afterSeq: number,
    signal: AbortSignal,
    until?: (record: StoredTask) => boolean,
    fresh?: boolean,
  ): Promise<StoredTask | undefined>;

  /** The key record, if the key was ever claimed in this scope and not yet purged. */
  getKey(scope: Scope, key: string): Promise<KeyRecord | undefined>;

  /**
   * Releases a claim whose task never started: deletes the task (only if its fence is still 1 and seq 0), its
   * push configs and the key (only if it still points at that task). Used when anything fails after the claim
   * and before the task is handed to its worker, so the caller's retry can run (docs/semantics.md §2 "Claim placement").
   * Returns whether anything was released.
   */
  releaseClaim(scope: Scope, taskId: string, key: string | undefined): Promise<boolean>;

  /**
   * Releases a key claimed by `claimKey` whose continuation was then refused: deletes the key only if it is live,
   * still points at `taskId` AND was claimed by `messageId` (so a key another message holds is never freed).
   * The task is not touched. Returns whether the key was deleted.
   */
  releaseKey(scope: Scope, key: string, taskId: string, messageId: string): Promise<boolean>;

  /** Stores (or replaces, by id) a push config of a task. The config must carry its `id`. */
  putPushConfig(scope: Scope, taskId: string, config: TaskPushNotificationConfig): Promise<void>;
  getPushConfig(scope: Scope, taskId: string, id: string): Promise<TaskPushNotificationConfig | undefined>;
  listPushConfigs(scope: Scope, taskId: string): Promise<TaskPushNotificationConfig[]>;
  /** Idempotent; returns whether a config was deleted. */
  deletePushConfig(scope: Scope, taskId: string, id: string): Promise<boolean>;

  /**
   * Push delivery (docs/semantics.md §5, ADR 0045). Claims, over every scope, at most `limit` webhooks that have
   * an undelivered event (`taskSeq > deliveredSeq`), whose next attempt is due and that nobody holds (or whose
   * holder's claim lapsed), oldest due first, for `holder` until now + `claimMs`. Of racing claimers, across
   * processes sharing the store, each webhook goes to one. `holder` names this one claim, not the dispatcher: a
   * dispatcher passes a fresh name on every call, so a claim of its own that lapsed and was claimed again is fenced
   * out like another replica's (ADR 0056). A new config starts before the task's first event (at its last event
   * when the task is already terminal); replacing a config by id keeps where its delivery stands.
   */
  claimPushDeliveries(holder: string, claimMs: number, limit: number): Promise<PushDelivery[]>;

  /**
   * Records what delivering to a claimed webhook came to (`PushOutcome`), only if `holder` still holds its claim
   * and (but for `released`) `outcome.seq` is the event after `deliveredSeq`; false otherwise, changing nothing.
   * Safe to repeat when an answer was lost: a repeat of an outcome that landed is answered true and changes
   * nothing (a `delivered` while the claim is still held, a releasing outcome until the webhook is claimed again).
   */
  recordPushDelivery(
    scope: Scope,
    taskId: string,
    configId: string,
    holder: string,
    outcome: PushOutcome,
  ): Promise<boolean>;

  /** Where delivery to a push config stands (attempts, last error, what was given up), if the config exists. */
  getPushDelivery(scope: Scope, taskId: string, configId: string): Promise<PushDeliveryState | undefined>;

  /**
   * Deletes terminal tasks older than the policy (with their events and push configs), turns expired keys whose
   * task is gone into tombstones, and deletes tombstones past their age, in batches (docs/semantics.md §6). Keys are
   * never deleted with their tasks. Non-terminal tasks are never touched.
   */
  purgeExpired(policy: RetentionPolicy): Promise<PurgeReport>;

  /**
   * Extends the lease of `taskId` to now + `ttlMs`, only if the task's fence still equals `fence` and `owner`
   * holds its lease. False means the worker lost the task (takeover, cancel, finish): it must stop. An owner
   * or TTL no store can honour (empty, not a positive whole number of ms) throws `StoreError` `BAD_ARGUMENT`.
   */
  renewLease(scope: Scope, taskId: string, fence: number, owner: string, ttlMs: number): Promise<boolean>;

  /**
   * SUBMITTED or WORKING tasks, over every scope, whose lease lapsed at or before the store's now (at most
   * `limit`, oldest lapse first), each with its record read in the same read as its fence and lease. Tasks
   * without a lease are never listed. Recovery takes each over from that record with a `commit` expecting its
   * fence and seq (so of racing recoverers exactly one wins, and a task written to since the listing is
   * refused, not overwritten: ADR 0131).
   */
  findLapsedLeases(limit: number): Promise<LapsedTask[]>;

  /**
   * How many SUBMITTED or WORKING tasks, over every scope, hold a lease that has not lapsed as of the store's now,
   * and when the first of them lapses. At a server's start-up these are tasks of another process: a sibling
   * replica's, or a stopped predecessor's that recovery takes over once their lease ends. Optional: a store
   * without it only makes the start-up report shorter.
   */
  leaseCensus?(): Promise<LeaseCensus>;

  /**
   * The schema version the database holds and the newest this code knows, read without changing anything
   * (`/readyz` says not ready until they are equal). Optional: a store with no schema (memory) has none.
   */
  schemaStatus?(): Promise<SchemaStatus>;

  /**
   * Live keys (claimed and not yet tombstones) over every scope: what the key caps count, summed, for the
   * `a2a_once.keys.live` gauge. One indexed count on SQL stores; callers read it now and then, not per send.
   * Optional: a store without it has no such gauge.
   */
  countLiveKeys?(): Promise<number>;

  /**
   * Records a durable step's result once per (task, name), atomically, under the fence: `recorded` if none
   * existed and the task's fence equals `input.fence`; `exists` with the earlier record if one exists (whatever
   * the fence); `fenced` otherwise. Steps are deleted with their task. The result is kept as JSON text and every
   * record hands back a parse of it, so a first run and a resumed one see the same value; a name, fence or
   * result that cannot be kept exactly (not plain JSON data) throws `StoreError` `BAD_ARGUMENT`, recording nothing.
   */
  recordStep(scope: Scope, taskId: string, input: StepInput): Promise<StepResult>;

  /** The recorded step, if any. */
  getStep(scope: Scope, taskId: string, name: string): Promise<StepRecord | undefined>;

  /**
   * Writes where a step's latest attempt stands (ADR 0121), atomically, under the fence like `recordStep`: a
   * compare-and-set on the record by attempt number (`stepAttemptTransition`), so a repeat after a lost answer
   * is answered `written` and changes nothing. Deleted with the task. A bad input throws `StoreError`
   * `BAD_ARGUMENT`, writing nothing.
   */
  writeStepAttempt(scope: Scope, taskId: string, input: StepAttemptInput): Promise<StepAttemptResult>;

  /** The latest attempt recorded for the step, if any. */
  getStepAttempt(scope: Scope, taskId: string, name: string): Promise<StepAttemptRecord | undefined>;

  /**
   * Records that the delegating parent of `taskId` renewed the lease it gave the task, at the store's now
   * (docs/semantics.md §4 "Delegation", ADR 0044). Kept on the task, so every replica sharing the store sees it:
   * the parent's poll may reach one replica while another runs the child. Only a task that is not terminal is
   * renewed (a finished child has no lease left to keep); false when there is none such in `scope`. Not a write
   * of the task: its fence, events and `updatedAt` stay.
   */
  recordParentRenewal(scope: Scope, taskId: string): Promise<boolean>;

  /** When the task's delegating parent last renewed its lease (`recordParentRenewal`), if it ever did. */
  lastParentRenewal(scope: Scope, taskId: string): Promise<number | undefined>;

  /**
   * Leadership among the processes sharing this store, for periodic work that one of them should do at a time
   * (the retention schedule). Atomically: if nobody holds `role`, or its lease lapsed, or `holder` holds it,
   * `holder` holds it until now + `ttlMs` and the call returns true; otherwise false and nothing changes. A
   * store that only one process can use (memory) always returns true.
   */
  tryLead(role: string, holder: string, ttlMs: number): Promise<boolean>;

  /** Releases connections and timers. */
  close(): Promise<void>;
}

/** The longest `writeId` a store keeps. */
export const MAX_WRITE_ID_LENGTH = 128;

/**
 * A commit that did not match: answered as landed when the task's last applied write is this very write (an
 * earlier attempt whose answer was lost, ADR 0052), refused otherwise. Every store decides it the same way.
 */
export function refusedOrLanded(
  write: TaskWrite,
  current: StoredTask | undefined,
  lastWriteId: string | null | undefined,
): CommitResult {
  if (current !== undefined && write.writeId !== undefined && lastWriteId === write.writeId) {
    return { ok: true, record: current, landedEarlier: true };
  }
  return { ok: false, current };
}

/**
 * Whether `existing`, found under the id of a task `input` was about to create, is that very task, created by an
 * earlier application of `input` whose answer was lost: task ids are minted per send, and the creating message
 * is the first of its history. A task of that id made by anything else is not recognised (ADR 0052).
 */
export function createdEarlier(input: CreateTaskInput, existing: StoredTask): boolean {
  const first = input.task.history?.[0]?.messageId;
  return first !== undefined && existing.task.history?.[0]?.messageId === first;
}
