/**
 * The Redis `TaskStore` (docs/guides/redis-store.md), shared by server replicas. Every write is one Lua script on the
 * slot of its scope (ADR 0115, ADR 0116): the claim-and-create, the fenced compare-and-set with its events, the
 * push cursors, steps, leases and each retention batch run atomically on the server, so replicas racing on one
 * key or one fence get exactly one winner, as on the SQL stores. Reads of one record are single commands.
 * Timestamps come from the store's `Clock`, not from Redis, so replicas need roughly synchronised clocks (NTP);
 * Redis's own expiry only frees memory of what the store's clock already lets go (tombstones, leadership).
 */
import type { TaskPushNotificationConfig } from '../../protocol/requests.js';
import { isTerminalState } from '../../protocol/task-state.js';
import { abandonedTaskWrite, isAbandoned } from '../abandon.js';
import { systemClock, type Clock } from '../clock.js';
import { decodePageToken } from '../page-token.js';
import {
  checkPushClaim,
  checkPushOutcome,
  type PushDelivery,
  type PushDeliveryState,
  type PushOutcome,
} from '../push-delivery.js';
import type { KeyRecord, LapsedTask, LeaseCensus, StepRecord, StoredEvent, StoredTask } from '../records.js';
import { DEFAULT_TOMBSTONE_TTL_MS, type PurgeReport, type RetentionPolicy } from '../retention.js';
import type { Scope } from '../scope.js';
import { EventNotifier, taskKey } from '../sql/event-notifier.js';
import { AT_CAP_EXPIRY_BUDGET } from '../sql/key-count-cache.js';
import { leaseInputError } from '../sql/lease.js';
import { toTaskPage } from '../sql/list-query.js';
import { pollNextRecord } from '../sql/poll-next-record.js';
import { pollWatch, unlimitedListeners } from '../sql/poll-watch.js';
import { runPurge } from '../sql/purge-loop.js';
import { createdTaskRecord, deriveColumns } from '../sql/sql-rows.js';
import { stepRecord, stepResultText } from '../sql/step-input.js';
import { StoreError } from '../sql/store-error.js';
import { checkLeaseGrant, checkLimit, checkOwnerAndTtl, checkWriteId, leaseAt } from '../sql/worker-lease.js';
import {
  claimDigest,
  refusedOrLanded,
  type ClaimKeyInput,
  type ClaimKeyResult,
  type CommitResult,
  type CreateTaskInput,
  type CreateTaskResult,
  type KeyClaimPolicy,
  type StepInput,
  type StepResult,
  type StoreCapabilities,
  type TaskPage,
  type TaskQuery,
  type TaskStore,
  type TaskWrite,
} from '../task-store.js';
import {
  redisConnection,
  type RedisClientLike,
  type RedisConnection,
  type RedisReply,
} from './redis-connection.js';
import { DEFAULT_REDIS_PREFIX, RedisKeys, scopeTag } from './redis-keys.js';
import {
  KEY_FIELDS,
  TASK_FIELDS,
  list,
  replyInt,
  replyString,
  toKeyRecord,
  toPushDelivery,
  toPushState,
  toStepRecord,
  toStoredTask,
} from './redis-records.js';
import { ScopeRegistry } from './redis-scopes.js';
import { SCRIPTS } from './redis-scripts.js';
import { getStepAttemptRedis, writeStepAttemptRedis } from './redis-step-attempts.js';
import type { StepAttemptInput, StepAttemptRecord, StepAttemptResult } from '../step-attempts.js';
import { RedisWakeups } from './redis-wakeups.js';

/** How long past its lease Redis keeps a leadership role's key (the store's clock decides; this frees memory). */
const LEAD_KEY_MARGIN_MS = 60_000;

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
  /** Called by `close()`, e.g. to quit a client the store opened itself (`openStore`). */
  onClose?: () => Promise<void>;
}

/** A TaskStore in Redis, safe to share between processes and replicas. */
export class RedisTaskStore implements TaskStore {
  /** Redis holds keys in memory: the server keeps its per-scope key cap (ADR 0047). */
  readonly capabilities: StoreCapabilities = { idempotency: true, sharedAcrossProcesses: true };
  readonly supportsIdempotency = true;

  readonly #conn: RedisConnection;
  readonly #keys: RedisKeys;
  readonly #clock: Clock;
  readonly #pollIntervalMs: number;
  readonly #tombstoneTtlMs: number;
  readonly #notifier = new EventNotifier();
  readonly #scopes: ScopeRegistry;
  readonly #wakeups: RedisWakeups;
  readonly #closing = unlimitedListeners(new AbortController());
  readonly #onClose: (() => Promise<void>) | undefined;

  constructor(options: RedisTaskStoreOptions) {
    this.#conn = redisConnection(options.client);
    this.#keys = new RedisKeys(options.prefix ?? DEFAULT_REDIS_PREFIX);
    this.#clock = options.clock ?? systemClock;
    this.#pollIntervalMs = options.pollIntervalMs ?? 2000;
    this.#tombstoneTtlMs = options.tombstoneTtlMs ?? DEFAULT_TOMBSTONE_TTL_MS;
    if (!Number.isSafeInteger(this.#pollIntervalMs) || this.#pollIntervalMs <= 0)
      throw new StoreError('BAD_OPTIONS', 'pollIntervalMs must be a positive whole number of ms');
    this.#scopes = new ScopeRegistry(this.#conn, this.#keys, this.#clock);
    this.#wakeups = new RedisWakeups(this.#conn, this.#keys, this.#notifier);
    this.#onClose = options.onClose;
  }

  /** The key prefix. */
  get prefix(): string {
    return this.#keys.prefix;
  }

  #base(scope: Scope): string {
    return this.#keys.base(scopeTag(scope));
  }

  #send(args: string[], routeKey: string): Promise<RedisReply> {
    return this.#conn.send(args, routeKey);
  }

  #claimArgs(claim: NonNullable<CreateTaskInput['claim']>, policy: KeyClaimPolicy): string[] {
    return [
      claim.key,
      claim.messageId,
      claimDigest(claim),
      String(claim.expiresAt),
      String(policy.maxKeysPerScope ?? -1),
      policy.onExpiredKey === 'replace' ? '1' : '0',
      String(this.#tombstoneTtlMs),
      String(AT_CAP_EXPIRY_BUDGET),
    ];
  }

  async createTask(scope: Scope, input: CreateTaskInput): Promise<CreateTaskResult> {
    checkLeaseGrant('createTask', input.lease);
    const now = this.#clock.now();
    const tag = scopeTag(scope);
    await this.#scopes.ensure(tag);
    const task = input.task;
    const d = deriveColumns(task, 'task');
    const lease = input.lease ? leaseAt(input.lease, now) : undefined;
    const claim = input.claim;
    const configs = (input.pushConfigs ?? []).filter((p) => p.id);
    const args = [
      String(now),
      task.id,
      JSON.stringify(task),
      d.statusState,
      d.statusTs,
      d.contextId === null ? '0' : '1',
      d.contextId ?? '',
      d.terminal ? '1' : '0',
      lease?.owner ?? '',
      lease ? String(lease.expiresAt) : '',
      task.history?.[0]?.messageId ?? '',
      claim ? '1' : '0',
      ...(claim ? this.#claimArgs(claim, input) : ['', '', '', '', '-1', '0', '0', '0']),
      String(configs.length),
      ...configs.flatMap((p) => [p.id!, JSON.stringify(p)]),
    ];
    const r = list(await SCRIPTS.create.run(this.#conn, [this.#keys.base(tag)], args));
    if (r[0] === 'created') return { outcome: 'created', record: createdTaskRecord(task, now, lease) };
    if (r[0] === 'landed')
      return { outcome: 'created', record: toStoredTask(r[1] ?? null)!, landedEarlier: true };
    if (r[0] === 'exists')
      throw new StoreError('TASK_EXISTS', `task ${task.id} already exists in this scope`);
    return this.#refusal(r, claim!.key);
  }

  #refusal(r: RedisReply[], key: string): Exclude<ClaimKeyResult, { outcome: 'claimed' }> {
    if (r[0] === 'capacity') return { outcome: 'capacity' };
    const record = toKeyRecord(key, r[1] ?? null)!;
    return r[0] === 'held' ? { outcome: 'held', key: record } : { outcome: 'expired', key: record };
  }

  async claimKey(scope: Scope, input: ClaimKeyInput): Promise<ClaimKeyResult> {
    const now = this.#clock.now();
    const tag = scopeTag(scope);
    await this.#scopes.ensure(tag);
    const claim = input.claim;
    const args = [String(now), input.taskId, ...this.#claimArgs(claim, input)];
    const r = list(await SCRIPTS.claimKey.run(this.#conn, [this.#keys.base(tag)], args));
    if (r[0] !== 'claimed') return this.#refusal(r, claim.key);
    const key: KeyRecord = {
      key: claim.key,
      messageId: claim.messageId,
      digest: args[4]!,
      taskId: input.taskId,
      createdAt: now,
      expiresAt: claim.expiresAt,
      tombstone: false,
    };
    return { outcome: 'claimed', key };
  }

  async getTask(scope: Scope, taskId: string): Promise<StoredTask | undefined> {
    const key = this.#keys.task(scopeTag(scope), taskId);
    return toStoredTask(await this.#send(['HMGET', key, ...TASK_FIELDS], key));
  }

  async listTasks(scope: Scope, query: TaskQuery): Promise<TaskPage> {
    const after = query.pageToken === undefined ? undefined : decodePageToken(query.pageToken);
    const flag = (v: unknown) => (v === undefined ? '0' : '1');
    const pageSize = Math.max(0, query.pageSize);
    const args = [
      flag(query.contextId),
      query.contextId ?? '',
      flag(query.status),
      query.status ?? '',
      flag(query.statusTimestampAfter),
      query.statusTimestampAfter ?? '',
      flag(after),
      after?.timestamp ?? '',
      after?.id ?? '',
      String(pageSize),
    ];
    const [total, rows] = list(await SCRIPTS.list.run(this.#conn, [this.#base(scope)], args));
    const records = list(rows ?? null).map((row) => toStoredTask(row)!);
    return toTaskPage(records, pageSize, replyInt(total));
  }

  async commit(scope: Scope, taskId: string, write: TaskWrite): Promise<CommitResult> {
    checkLeaseGrant('commit', write.lease);
    const writeId = checkWriteId(write.writeId);
    const now = this.#clock.now();
    const task = write.task;
    const lease = write.lease ? leaseAt(write.lease, now) : undefined;
    const args = [
      String(now),
      taskId,
      JSON.stringify(task),
      write.reply ? JSON.stringify(write.reply) : '',
      write.nextFence === undefined ? '' : String(write.nextFence),
      task.status.state,
      task.status.timestamp ?? '',
      task.contextId === undefined ? '0' : '1',
      task.contextId ?? '',
      isTerminalState(task.status.state) ? '1' : '0',
      String(write.expectFence),
      write.expectSeq === undefined ? '' : String(write.expectSeq),
      write.lease === undefined ? 'k' : write.lease === null ? 'c' : 's',
      lease?.owner ?? '',
      lease ? String(lease.expiresAt) : '',
      writeId ?? '',
      ...write.events.map((e) => JSON.stringify(e)),
    ];
    const r = list(await SCRIPTS.commit.run(this.#conn, [this.#base(scope)], args));
    if (r[0] === 'gone') return { ok: false, current: undefined };
    if (r[0] === 'refused') return refusedOrLanded(write, toStoredTask(r[2] ?? null), replyString(r[1]));
    const [, kind, fence, seq, createdAt, updatedAt, leaseOwner, leaseExpires] = r;
    const record: { -readonly [K in keyof StoredTask]: StoredTask[K] } = {
      task,
      kind: kind === 'message' ? 'message' : 'task',
      fence: replyInt(fence),
      seq: replyInt(seq),
      createdAt: replyInt(createdAt),
      updatedAt: replyInt(updatedAt),
    };
    if (write.reply) record.reply = write.reply;
    if (typeof leaseOwner === 'string' && leaseExpires !== null && leaseExpires !== undefined)
      record.lease = { owner: leaseOwner, expiresAt: replyInt(leaseExpires) };
    this.#notifier.notify(taskKey(scope, taskId), record);
    return { ok: true, record };
  }

  async readEvents(scope: Scope, taskId: string, afterSeq: number): Promise<StoredEvent[]> {
    const from = Math.max(0, Math.floor(afterSeq));
    const key = this.#keys.events(scopeTag(scope), taskId);
    const rows = list(await this.#send(['LRANGE', key, String(from), '-1'], key));
    return rows.map((e, i) => ({ seq: from + i + 1, event: JSON.parse(String(e)) as StoredEvent['event'] }));
  }

  watch(scope: Scope, taskId: string, afterSeq: number, signal: AbortSignal): AsyncIterable<StoredEvent> {
    return this.#watch(scope, taskId, afterSeq, signal);
  }

  async *#watch(
    scope: Scope,
    taskId: string,
    afterSeq: number,
    signal: AbortSignal,
  ): AsyncGenerator<StoredEvent> {
    const tag = scopeTag(scope);
    const key = this.#keys.task(tag, taskId);
    const release = await this.#wakeups.hold(tag);
    try {
      const source = {
        currentSeq: async () => {
          const seq = await this.#send(['HGET', key, 'q'], key);
          return seq === null ? undefined : replyInt(seq);
        },
        readEvents: (after: number) => this.readEvents(scope, taskId, after),
      };
      yield* pollWatch(source, afterSeq, signal, {
        closing: this.#closing.signal,
        notifier: this.#notifier,
        key: taskKey(scope, taskId),
        pollIntervalMs: this.#pollIntervalMs,
      });
    } finally {
      release();
    }
  }

  async nextRecord(
    scope: Scope,
    taskId: string,
    afterSeq: number,
    signal: AbortSignal,
    until?: (record: StoredTask) => boolean,
    fresh?: boolean,
  ): Promise<StoredTask | undefined> {
    const release = await this.#wakeups.hold(scopeTag(scope));
    try {
      return await pollNextRecord(() => this.getTask(scope, taskId), afterSeq, signal, until, {
        closing: this.#closing.signal,
        notifier: this.#notifier,
        key: taskKey(scope, taskId),
        pollIntervalMs: this.#pollIntervalMs,
        fresh: fresh === true,
      });
    } finally {
      release();
    }
  }

  async getKey(scope: Scope, key: string): Promise<KeyRecord | undefined> {
    const name = this.#keys.key(scopeTag(scope), key);
    return toKeyRecord(key, await this.#send(['HMGET', name, ...KEY_FIELDS], name));
  }

  async releaseClaim(scope: Scope, taskId: string, key: string | undefined): Promise<boolean> {
    const r = await SCRIPTS.releaseClaim.run(this.#conn, [this.#base(scope)], [taskId, key ?? '']);
    if (r !== 1) return false;
    this.#notifier.notify(taskKey(scope, taskId));
    return true;
  }

  async releaseKey(scope: Scope, key: string, taskId: string, messageId: string): Promise<boolean> {
    return (await SCRIPTS.releaseKey.run(this.#conn, [this.#base(scope)], [key, taskId, messageId])) === 1;
  }

  async putPushConfig(scope: Scope, taskId: string, config: TaskPushNotificationConfig): Promise<void> {
    if (!config.id) return;
    await SCRIPTS.putConfig.run(this.#conn, [this.#base(scope)], [taskId, config.id, JSON.stringify(config)]);
  }

  async getPushConfig(
    scope: Scope,
    taskId: string,
    id: string,
  ): Promise<TaskPushNotificationConfig | undefined> {
    const key = this.#keys.pushConfigs(scopeTag(scope), taskId);
    const json = await this.#send(['HGET', key, id], key);
    return json === null ? undefined : (JSON.parse(String(json)) as TaskPushNotificationConfig);
  }

  async listPushConfigs(scope: Scope, taskId: string): Promise<TaskPushNotificationConfig[]> {
    const r = list(await SCRIPTS.listConfigs.run(this.#conn, [this.#base(scope)], [taskId]));
    return r.map((json) => JSON.parse(String(json)) as TaskPushNotificationConfig);
  }

  async deletePushConfig(scope: Scope, taskId: string, id: string): Promise<boolean> {
    return (await SCRIPTS.deleteConfig.run(this.#conn, [this.#base(scope)], [taskId, id])) === 1;
  }

  async claimPushDeliveries(holder: string, claimMs: number, limit: number): Promise<PushDelivery[]> {
    checkPushClaim('claimPushDeliveries', holder, claimMs, limit);
    if (limit === 0) return [];
    const now = this.#clock.now();
    const scopes = await this.#scopes.scopes();
    const head = [holder, String(now + claimMs), String(now), String(limit)];
    const claimIn = async (tag: string, members: string[]) => {
      const base = this.#keys.base(tag);
      const scope = scopes.find((s) => s.tag === tag)!.scope;
      const r = list(await SCRIPTS.claimPush.run(this.#conn, [base], [...head, ...members]));
      return r.map((row) => toPushDelivery(scope, row));
    };
    if (scopes.length === 1) return claimIn(scopes[0]!.tag, []);
    // Several scopes: pick the oldest due over all of them, then claim those (each claim re-checks).
    const due = await Promise.all(
      scopes.map(async ({ tag }) => {
        const ix = `${this.#keys.base(tag)}ix:push`;
        // RESP2 sends member, score, ...; RESP3 pairs of them: flattened, both read alike.
        const r = list(
          await this.#send(
            ['ZRANGEBYSCORE', ix, '-inf', String(now), 'WITHSCORES', 'LIMIT', '0', String(limit)],
            ix,
          ),
        ).flat();
        const out: { tag: string; member: string; at: number }[] = [];
        for (let i = 0; i + 1 < r.length; i += 2)
          out.push({ tag, member: String(r[i]), at: Number(r[i + 1]) });
        return out;
      }),
    );
    const picked = due
      .flat()
      .sort((a, b) => a.at - b.at)
      .slice(0, limit);
    const byTag = new Map<string, string[]>();
    for (const p of picked) byTag.set(p.tag, [...(byTag.get(p.tag) ?? []), p.member]);
    const claimed = await Promise.all([...byTag].map(([tag, members]) => claimIn(tag, members)));
    return claimed.flat().sort((a, b) => a.nextAttemptAt - b.nextAttemptAt);
  }

  async recordPushDelivery(
    scope: Scope,
    taskId: string,
    configId: string,
    holder: string,
    outcome: PushOutcome,
  ): Promise<boolean> {
    const error = checkPushOutcome('recordPushDelivery', holder, outcome) ?? '';
    const now = this.#clock.now();
    const o = outcome as Partial<{
      seq: number;
      claimMs: number;
      retryAt: number;
      through: string;
      reason: string;
    }>;
    const args = [
      taskId,
      configId,
      holder,
      outcome.kind,
      String(o.seq ?? 0),
      String(now),
      String(now + (o.claimMs ?? 0)),
      error,
      String(o.retryAt ?? 0),
      o.through === 'backlog' ? 'b' : 'e',
      o.reason ?? '',
    ];
    return (await SCRIPTS.recordPush.run(this.#conn, [this.#base(scope)], args)) === 1;
  }

  async getPushDelivery(
    scope: Scope,
    taskId: string,
    configId: string,
  ): Promise<PushDeliveryState | undefined> {
    const r = await SCRIPTS.pushState.run(this.#conn, [this.#base(scope)], [taskId, configId]);
    if (!Array.isArray(r)) return undefined;
    return toPushState(configId, replyInt(r[0]), r[1] ?? null);
  }

  purgeExpired(policy: RetentionPolicy): Promise<PurgeReport> {
    const now = this.#clock.now();
    const cut: PurgeCutoffs = {
      now,
      taskCutoff: now - policy.terminalMaxAgeMs,
      abandonCutoff: policy.interruptedMaxAgeMs === undefined ? null : now - policy.interruptedMaxAgeMs,
      tombCutoff: now - (policy.tombstoneMaxAgeMs ?? this.#tombstoneTtlMs),
    };
    let scopes: { tag: string; scope: Scope }[] = [];
    return runPurge(policy, {
      prepare: async () => {
        scopes = await this.#scopes.scopes();
      },
      runBatch: async (limit) => {
        const total = { tasks: 0, abandoned: 0, keys: 0, tombstones: 0 };
        const active: typeof scopes = [];
        let left = limit;
        for (const s of scopes) {
          if (left <= 0) {
            active.push(s);
            continue;
          }
          const r = await this.#purgeScope(s.tag, s.scope, cut, left);
          const n = r.tasks + r.abandoned + r.keys + r.tombstones;
          total.tasks += r.tasks;
          total.abandoned += r.abandoned;
          total.keys += r.keys;
          total.tombstones += r.tombstones;
          left -= n;
          // A scope that did less than it was allowed has nothing left for this purge.
          if (left <= 0) active.push(s);
          else if (r.empty) await this.#scopes.forgetIfIdle(s.tag);
        }
        scopes = active;
        return total;
      },
      hasPurgeable: async () => {
        const args = [
          String(cut.taskCutoff),
          cut.abandonCutoff === null ? '' : String(cut.abandonCutoff),
          String(cut.now),
          String(cut.tombCutoff),
        ];
        for (const { tag } of await this.#scopes.scopes()) {
          if ((await SCRIPTS.purgeRemains.run(this.#conn, [this.#keys.base(tag)], args)) === 1) return true;
        }
        return false;
      },
    });
  }

  /** One scope's share of a retention batch, in the SQL stores' order: tasks, abandoned tasks, keys, tombstones. */
  async #purgeScope(tag: string, scope: Scope, cut: PurgeCutoffs, limit: number) {
    const base = this.#keys.base(tag);
    const gone = list(
      await SCRIPTS.purgeTasks.run(this.#conn, [base], [String(cut.taskCutoff), String(limit)]),
    );
    // Deleted tasks end their watches.
    for (const id of gone) this.#notifier.notify(taskKey(scope, String(id)));
    let left = limit - gone.length;
    let abandoned = 0;
    if (left > 0 && cut.abandonCutoff !== null) {
      abandoned = await this.#endAbandoned(scope, base, cut.abandonCutoff, cut.now, left);
      left -= abandoned;
    }
    let keys = 0;
    let tombstones = 0;
    let empty = false;
    if (left > 0) {
      const args = [String(cut.now), String(cut.tombCutoff), String(left), String(this.#tombstoneTtlMs)];
      const r = list(await SCRIPTS.purgeKeys.run(this.#conn, [base], args));
      keys = replyInt(r[0]);
      tombstones = replyInt(r[1]);
      empty = r[2] === 1;
    }
    return { tasks: gone.length, abandoned, keys, tombstones, empty };
  }

  /**
   * Ends up to `limit` abandoned interrupted tasks with the shared write (abandon.ts), each a compare-and-set on
   * the fence and seq read: a continuation that committed first makes it miss, and it is not counted.
   */
  async #endAbandoned(
    scope: Scope,
    base: string,
    cutoff: number,
    now: number,
    limit: number,
  ): Promise<number> {
    const ix = `${base}ix:intr`;
    const ids = list(
      await this.#send(['ZRANGEBYSCORE', ix, '-inf', String(cutoff), 'LIMIT', '0', String(limit)], ix),
    );
    let ended = 0;
    for (const id of ids.map(String)) {
      const cur = await this.getTask(scope, id);
      if (!cur || !isAbandoned(cur, cutoff)) continue;
      const end = abandonedTaskWrite(cur.task, now);
      const write = {
        expectFence: cur.fence,
        expectSeq: cur.seq,
        nextFence: cur.fence + 1,
        task: end.task,
        events: [end.event],
      };
      if ((await this.commit(scope, id, write)).ok) ended++;
    }
    return ended;
  }

  async renewLease(
    scope: Scope,
    taskId: string,
    fence: number,
    owner: string,
    ttlMs: number,
  ): Promise<boolean> {
    checkOwnerAndTtl('renewLease', owner, ttlMs);
    const args = [taskId, String(fence), owner, String(this.#clock.now() + ttlMs)];
    return (await SCRIPTS.renewLease.run(this.#conn, [this.#base(scope)], args)) === 1;
  }

  async findLapsedLeases(limit: number): Promise<LapsedTask[]> {
    checkLimit('findLapsedLeases', limit);
    if (limit === 0) return [];
    const now = String(this.#clock.now());
    const per = await Promise.all(
      (await this.#scopes.scopes()).map(async ({ tag, scope }) => {
        const r = list(await SCRIPTS.lapsed.run(this.#conn, [this.#keys.base(tag)], [now, String(limit)]));
        const out: LapsedTask[] = [];
        for (let i = 0; i + 3 < r.length; i += 4) {
          out.push({
            tenant: scope.tenant,
            owner: scope.owner,
            taskId: String(r[i]),
            fence: replyInt(r[i + 1]),
            lease: { owner: String(r[i + 2]), expiresAt: replyInt(r[i + 3]) },
          });
        }
        return out;
      }),
    );
    return per
      .flat()
      .sort((a, b) => a.lease.expiresAt - b.lease.expiresAt)
      .slice(0, limit);
  }

  async leaseCensus(): Promise<LeaseCensus> {
    const now = String(this.#clock.now());
    let held = 0;
    let first: number | undefined;
    for (const { tag } of await this.#scopes.scopes()) {
      const [n, at] = list(await SCRIPTS.census.run(this.#conn, [this.#keys.base(tag)], [now]));
      held += replyInt(n);
      if (at !== null && at !== undefined) first = Math.min(first ?? Infinity, Number(at));
    }
    return held === 0 || first === undefined ? { held } : { held, firstExpiresAt: first };
  }

  async countLiveKeys(): Promise<number> {
    let n = 0;
    for (const { tag } of await this.#scopes.scopes())
      n += replyInt(await SCRIPTS.liveKeys.run(this.#conn, [this.#keys.base(tag)], []));
    return n;
  }

  async recordStep(scope: Scope, taskId: string, input: StepInput): Promise<StepResult> {
    const text = stepResultText(input);
    const now = this.#clock.now();
    const args = [taskId, input.name, String(input.fence), text, String(now)];
    const r = list(await SCRIPTS.recordStep.run(this.#conn, [this.#base(scope)], args));
    if (r[0] === 'recorded')
      return { outcome: 'recorded', step: stepRecord(taskId, input.name, text, input.fence, now) };
    if (r[0] === 'exists') return { outcome: 'exists', step: toStepRecord(taskId, input.name, String(r[1])) };
    return { outcome: 'fenced' };
  }

  async getStep(scope: Scope, taskId: string, name: string): Promise<StepRecord | undefined> {
    const key = this.#keys.steps(scopeTag(scope), taskId);
    const v = await this.#send(['HGET', key, name], key);
    return v === null ? undefined : toStepRecord(taskId, name, String(v));
  }

  writeStepAttempt(scope: Scope, taskId: string, input: StepAttemptInput): Promise<StepAttemptResult> {
    return writeStepAttemptRedis(this.#conn, this.#base(scope), taskId, input, this.#clock.now());
  }

  getStepAttempt(scope: Scope, taskId: string, name: string): Promise<StepAttemptRecord | undefined> {
    return getStepAttemptRedis(this.#conn, this.#base(scope), taskId, name);
  }

  async recordParentRenewal(scope: Scope, taskId: string): Promise<boolean> {
    const args = [taskId, String(this.#clock.now())];
    return (await SCRIPTS.parentRenewal.run(this.#conn, [this.#base(scope)], args)) === 1;
  }

  async lastParentRenewal(scope: Scope, taskId: string): Promise<number | undefined> {
    const key = this.#keys.task(scopeTag(scope), taskId);
    const v = await this.#send(['HGET', key, 'pr'], key);
    return v === null ? undefined : replyInt(v);
  }

  async tryLead(role: string, holder: string, ttlMs: number): Promise<boolean> {
    const bad = leaseInputError(role, holder, ttlMs);
    if (bad) throw bad;
    const now = this.#clock.now();
    const args = [holder, String(now + ttlMs), String(now), String(ttlMs + LEAD_KEY_MARGIN_MS)];
    return (await SCRIPTS.tryLead.run(this.#conn, [this.#keys.lead(role)], args)) === 1;
  }

  async close(): Promise<void> {
    this.#closing.abort();
    await this.#wakeups.close();
    await this.#conn.close();
    await this.#onClose?.();
  }
}

interface PurgeCutoffs {
  readonly now: number;
  readonly taskCutoff: number;
  readonly abandonCutoff: number | null;
  readonly tombCutoff: number;
}
