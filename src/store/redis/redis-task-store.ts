/**
 * The Redis `TaskStore` (docs/guides/redis-store.md), shared by server replicas. Every write is one Lua script on the
 * slot of its scope (ADR 0115, ADR 0116): the claim-and-create, the fenced compare-and-set with its events, the
 * push cursors, steps, leases and each retention batch run atomically on the server, so replicas racing on one
 * key or one fence get exactly one winner, as on the SQL stores. Reads of one record are single commands.
 * Timestamps come from the store's `Clock`, not from Redis, so replicas need roughly synchronised clocks (NTP);
 * Redis's own expiry only frees memory of what the store's clock already lets go (tombstones, leadership).
 *
 * This class holds the store's state; each operation lives with its concept under `operations/` (claims, tasks,
 * events, push, leases, retention, steps).
 */
import type { TaskPushNotificationConfig } from '../../protocol/requests.js';
import { systemClock, type Clock } from '../clock.js';
import type { PushDelivery, PushDeliveryState, PushOutcome } from '../push-delivery.js';
import type { KeyRecord, LapsedTask, LeaseCensus, StepRecord, StoredEvent, StoredTask } from '../records.js';
import { DEFAULT_TOMBSTONE_TTL_MS, type PurgeReport, type RetentionPolicy } from '../retention.js';
import type { Scope } from '../scope.js';
import { EventNotifier } from '../sql/event-notifier.js';
import { unlimitedListeners } from '../sql/poll-watch.js';
import { StoreError } from '../sql/store-error.js';
import type {
  ClaimKeyInput,
  ClaimKeyResult,
  CommitResult,
  CreateTaskInput,
  CreateTaskResult,
  StepInput,
  StepResult,
  StoreCapabilities,
  TaskPage,
  TaskQuery,
  TaskStore,
  TaskWrite,
} from '../task-store.js';
import * as claims from './operations/claims.js';
import * as events from './operations/events.js';
import * as leases from './operations/leases.js';
import * as push from './operations/push.js';
import * as retention from './operations/retention.js';
import * as steps from './operations/steps.js';
import type { RedisStoreContext } from './operations/store-context.js';
import * as tasks from './operations/tasks.js';
import { redisConnection, type RedisClientLike } from './redis-connection.js';
import { DEFAULT_REDIS_PREFIX, RedisKeys } from './redis-keys.js';
import { ScopeRegistry } from './redis-scopes.js';
import type { StepAttemptInput, StepAttemptRecord, StepAttemptResult } from '../step-attempts.js';
import { DEFAULT_REDIS_COMMAND_TIMEOUT_MS, withCommandTimeout } from './redis-timeout.js';
import { RedisWakeups } from './redis-wakeups.js';

/** Options of the Redis store. */
export interface RedisTaskStoreOptions {
  /** A connected node-redis client or cluster, or an ioredis client or cluster (`RedisClientLike`). */
  client: RedisClientLike;
  /** Prefix of every key (default `a2a-once:`); stores with different prefixes share a server without meeting. */
  prefix?: string;
  /** Source of every timestamp and cutoff (default: the wall clock). Replicas need roughly synchronised clocks. */
  clock?: Clock;
  /**
   * Longest delay before a waiter sees a commit whose wake-up message was lost (pub/sub delivers at most once;
   * default 2000 ms). Wake-ups, not this poll, are how commits of other processes normally arrive.
   */
  pollIntervalMs?: number;
  /** Tombstone age used when a retention policy names none, and Redis's expiry of every tombstone (default 7 days). */
  tombstoneTtlMs?: number;
  /**
   * Longest wait for the answer of one Redis call (default 5000 ms, ADR 0127): a silent connection then fails the
   * call with `StoreError` `STORE_TIMEOUT` (outcome unknown, a lost answer) instead of holding it for good.
   */
  commandTimeoutMs?: number;
  /** Called by `close()`, e.g. to quit a client the store opened itself (`openStore`). */
  onClose?: () => Promise<void>;
}

/** A TaskStore in Redis, safe to share between processes and replicas. */
export class RedisTaskStore implements TaskStore {
  /** Redis holds keys in memory: the server keeps its per-scope key cap (ADR 0047). */
  readonly capabilities: StoreCapabilities = { idempotency: true, sharedAcrossProcesses: true };
  readonly supportsIdempotency = true;

  readonly #ctx: RedisStoreContext;
  readonly #closing = unlimitedListeners(new AbortController());
  readonly #onClose: (() => Promise<void>) | undefined;

  constructor(options: RedisTaskStoreOptions) {
    const conn = withCommandTimeout(
      redisConnection(options.client),
      options.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
    );
    const keys = new RedisKeys(options.prefix ?? DEFAULT_REDIS_PREFIX);
    const clock = options.clock ?? systemClock;
    const pollIntervalMs = options.pollIntervalMs ?? 2000;
    if (!Number.isSafeInteger(pollIntervalMs) || pollIntervalMs <= 0)
      throw new StoreError('BAD_OPTIONS', 'pollIntervalMs must be a positive whole number of ms');
    const notifier = new EventNotifier();
    this.#ctx = {
      conn,
      keys,
      clock,
      pollIntervalMs,
      tombstoneTtlMs: options.tombstoneTtlMs ?? DEFAULT_TOMBSTONE_TTL_MS,
      notifier,
      scopes: new ScopeRegistry(conn, keys, clock),
      wakeups: new RedisWakeups(conn, keys, notifier),
      closing: this.#closing.signal,
    };
    this.#onClose = options.onClose;
  }

  /** The key prefix. */
  get prefix(): string {
    return this.#ctx.keys.prefix;
  }

  // Keys and tasks (operations/claims.ts, operations/tasks.ts).

  createTask(scope: Scope, input: CreateTaskInput): Promise<CreateTaskResult> {
    return claims.createTask(this.#ctx, scope, input);
  }

  claimKey(scope: Scope, input: ClaimKeyInput): Promise<ClaimKeyResult> {
    return claims.claimKey(this.#ctx, scope, input);
  }

  getKey(scope: Scope, key: string): Promise<KeyRecord | undefined> {
    return claims.getKey(this.#ctx, scope, key);
  }

  releaseClaim(scope: Scope, taskId: string, key: string | undefined): Promise<boolean> {
    return claims.releaseClaim(this.#ctx, scope, taskId, key);
  }

  releaseKey(scope: Scope, key: string, taskId: string, messageId: string): Promise<boolean> {
    return claims.releaseKey(this.#ctx, scope, key, taskId, messageId);
  }

  getTask(scope: Scope, taskId: string): Promise<StoredTask | undefined> {
    return tasks.getTask(this.#ctx, scope, taskId);
  }

  listTasks(scope: Scope, query: TaskQuery): Promise<TaskPage> {
    return tasks.listTasks(this.#ctx, scope, query);
  }

  commit(scope: Scope, taskId: string, write: TaskWrite): Promise<CommitResult> {
    return tasks.commit(this.#ctx, scope, taskId, write);
  }

  // Events (operations/events.ts).

  readEvents(scope: Scope, taskId: string, afterSeq: number): Promise<StoredEvent[]> {
    return events.readEvents(this.#ctx, scope, taskId, afterSeq);
  }

  watch(scope: Scope, taskId: string, afterSeq: number, signal: AbortSignal): AsyncIterable<StoredEvent> {
    return events.watch(this.#ctx, scope, taskId, afterSeq, signal);
  }

  nextRecord(
    scope: Scope,
    taskId: string,
    afterSeq: number,
    signal: AbortSignal,
    until?: (record: StoredTask) => boolean,
    fresh?: boolean,
  ): Promise<StoredTask | undefined> {
    return events.nextRecord(this.#ctx, scope, taskId, afterSeq, signal, until, fresh);
  }

  // Push notifications (operations/push.ts).

  putPushConfig(scope: Scope, taskId: string, config: TaskPushNotificationConfig): Promise<void> {
    return push.putPushConfig(this.#ctx, scope, taskId, config);
  }

  getPushConfig(scope: Scope, taskId: string, id: string): Promise<TaskPushNotificationConfig | undefined> {
    return push.getPushConfig(this.#ctx, scope, taskId, id);
  }

  listPushConfigs(scope: Scope, taskId: string): Promise<TaskPushNotificationConfig[]> {
    return push.listPushConfigs(this.#ctx, scope, taskId);
  }

  deletePushConfig(scope: Scope, taskId: string, id: string): Promise<boolean> {
    return push.deletePushConfig(this.#ctx, scope, taskId, id);
  }

  claimPushDeliveries(holder: string, claimMs: number, limit: number): Promise<PushDelivery[]> {
    return push.claimPushDeliveries(this.#ctx, holder, claimMs, limit);
  }

  recordPushDelivery(
    scope: Scope,
    taskId: string,
    configId: string,
    holder: string,
    outcome: PushOutcome,
  ): Promise<boolean> {
    return push.recordPushDelivery(this.#ctx, scope, taskId, configId, holder, outcome);
  }

  getPushDelivery(scope: Scope, taskId: string, configId: string): Promise<PushDeliveryState | undefined> {
    return push.getPushDelivery(this.#ctx, scope, taskId, configId);
  }

  // Retention (operations/retention.ts).

  purgeExpired(policy: RetentionPolicy): Promise<PurgeReport> {
    return retention.purgeExpired(this.#ctx, policy);
  }

  countLiveKeys(): Promise<number> {
    return retention.countLiveKeys(this.#ctx);
  }

  // Leases and leadership (operations/leases.ts).

  renewLease(scope: Scope, taskId: string, fence: number, owner: string, ttlMs: number): Promise<boolean> {
    return leases.renewLease(this.#ctx, scope, taskId, fence, owner, ttlMs);
  }

  findLapsedLeases(limit: number): Promise<LapsedTask[]> {
    return leases.findLapsedLeases(this.#ctx, limit);
  }

  leaseCensus(): Promise<LeaseCensus> {
    return leases.leaseCensus(this.#ctx);
  }

  recordParentRenewal(scope: Scope, taskId: string): Promise<boolean> {
    return leases.recordParentRenewal(this.#ctx, scope, taskId);
  }

  lastParentRenewal(scope: Scope, taskId: string): Promise<number | undefined> {
    return leases.lastParentRenewal(this.#ctx, scope, taskId);
  }

  tryLead(role: string, holder: string, ttlMs: number): Promise<boolean> {
    return leases.tryLead(this.#ctx, role, holder, ttlMs);
  }

  // Steps (operations/steps.ts).

  recordStep(scope: Scope, taskId: string, input: StepInput): Promise<StepResult> {
    return steps.recordStep(this.#ctx, scope, taskId, input);
  }

  getStep(scope: Scope, taskId: string, name: string): Promise<StepRecord | undefined> {
    return steps.getStep(this.#ctx, scope, taskId, name);
  }

  writeStepAttempt(scope: Scope, taskId: string, input: StepAttemptInput): Promise<StepAttemptResult> {
    return steps.writeStepAttempt(this.#ctx, scope, taskId, input);
  }

  getStepAttempt(scope: Scope, taskId: string, name: string): Promise<StepAttemptRecord | undefined> {
    return steps.getStepAttempt(this.#ctx, scope, taskId, name);
  }

  async close(): Promise<void> {
    this.#closing.abort();
    await this.#ctx.wakeups.close();
    await this.#ctx.conn.close();
    await this.#onClose?.();
  }
}
