/**
 * The SQLite `TaskStore` (better-sqlite3, WAL). better-sqlite3 is synchronous, so each contract operation is one
 * `BEGIN IMMEDIATE` transaction run to completion between two awaits: within a process nothing can interleave
 * with it, and across processes sharing the file the IMMEDIATE write lock serialises writers (a busy writer waits
 * up to `busyTimeoutMs`). That is the whole atomicity argument, the same one as the memory store's, made durable.
 */
import BetterSqlite3 from 'better-sqlite3';
import type { Database, Statement } from 'better-sqlite3';
import type { SqliteDatabaseLike } from './sqlite-database-like.js';
import type { TaskPushNotificationConfig } from '../../protocol/requests.js';
import { systemClock, type Clock } from '../clock.js';
import { decodePageToken } from '../page-token.js';
import type { KeyRecord, LapsedTask, LeaseCensus, StepRecord, StoredEvent, StoredTask } from '../records.js';
import {
  checkPushClaim,
  checkPushOutcome,
  type PushDelivery,
  type PushDeliveryState,
  type PushOutcome,
} from '../push-delivery.js';
import { DEFAULT_TOMBSTONE_TTL_MS, type PurgeReport, type RetentionPolicy } from '../retention.js';
import type { Scope } from '../scope.js';
import { EventNotifier, taskKey } from '../sql/event-notifier.js';
import { buildListStatements, toTaskPage } from '../sql/list-query.js';
import type { MigrationReport, SchemaStatus } from '../sql/migration.js';
import { pollNextRecord } from '../sql/poll-next-record.js';
import { pollWatch, unlimitedListeners } from '../sql/poll-watch.js';
import { leaseInputError } from '../sql/lease.js';
import {
  toKeyRecord,
  toLapsedTask,
  censusOf,
  toPushConfig,
  toStoredEvent,
  toStoredTask,
  type EventRow,
  type KeyRow,
  type LapsedRow,
  type CensusRow,
  type TaskRow,
} from '../sql/sql-rows.js';
import { stepResultText } from '../sql/step-input.js';
import { checkLeaseGrant, checkLimit, checkOwnerAndTtl } from '../sql/worker-lease.js';
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
import { migrateSqlite, sqliteSchemaStatus } from './sqlite-migrate.js';
import { commitTx } from './sqlite-commit.js';
import { purgeSqlite } from './sqlite-purge.js';
import { SQL } from './sqlite-statements.js';
import { KeyCountCache } from '../sql/key-count-cache.js';
import { claimKeyTx } from './sqlite-claim-key.js';
import { createTaskTx } from './sqlite-create-task.js';
import { SqliteGroupCommit } from './sqlite-group-commit.js';
import { anyClaimable, claimTx, recordTx, selectState } from './sqlite-push.js';
import { recordStepTx, selectStep } from './sqlite-steps.js';
import { selectStepAttempt, writeStepAttemptTx } from './sqlite-step-attempts.js';
import type { StepAttemptInput, StepAttemptRecord, StepAttemptResult } from '../step-attempts.js';

/** Options of the SQLite store. Give `path` (the store opens and owns the file) or `database` (yours). */
export interface SqliteTaskStoreOptions {
  /** Database file; `:memory:` for a private in-memory database (one connection only). */
  path?: string;
  /** An open better-sqlite3 database; the store sets its pragmas but never closes it. */
  database?: SqliteDatabaseLike;
  /** Source of every timestamp and cutoff (default: the wall clock). */
  clock?: Clock;
  /** Longest delay before `watch` sees an event committed by another process (default 25 ms). */
  pollIntervalMs?: number;
  /** How long a writer waits for another process's write lock (default 5000 ms). */
  busyTimeoutMs?: number;
  /** `FULL` (default) survives power loss; `NORMAL` is faster and survives process crashes only. */
  synchronous?: 'FULL' | 'NORMAL';
  /** Tombstone age used when a retention policy names none (default 7 days). */
  tombstoneTtlMs?: number;
}

/** A TaskStore in a SQLite file, safe to share between processes on one machine. */
export class SqliteTaskStore implements TaskStore {
  readonly capabilities: StoreCapabilities = {
    idempotency: true,
    sharedAcrossProcesses: true,
    keysOnDisk: true,
  };
  readonly supportsIdempotency = true;

  readonly #db: Database;
  readonly #ownsDb: boolean;
  readonly #clock: Clock;
  readonly #pollIntervalMs: number;
  /** Spares the per-claim COUNT(*) of a scope's live keys while the cap is far away. */
  readonly #keyCounts = new KeyCountCache();
  readonly #tombstoneTtlMs: number;
  readonly #statements = new Map<string, Statement>();
  readonly #notifier = new EventNotifier();
  /**
   * Aborts every wait when the store closes. Each wait listens to it while it waits, so it has as many listeners
   * as there are waiting requests: no limit (Node's default of ten would warn of a leak on any busy server).
   */
  readonly #closing = unlimitedListeners(new AbortController());
  readonly #group: SqliteGroupCommit;

  constructor(options: SqliteTaskStoreOptions) {
    if (options.database) {
      // The option's structural type keeps the driver's out of our public types (ADR 0060); what is passed is a
      // better-sqlite3 Database, whose full type the store is written against.
      this.#db = options.database as Database;
      this.#ownsDb = false;
    } else {
      this.#db = new BetterSqlite3(options.path ?? ':memory:');
      this.#ownsDb = true;
    }
    this.#clock = options.clock ?? systemClock;
    this.#pollIntervalMs = options.pollIntervalMs ?? 25;
    this.#tombstoneTtlMs = options.tombstoneTtlMs ?? DEFAULT_TOMBSTONE_TTL_MS;
    this.#db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs ?? 5000))}`);
    this.#db.pragma('journal_mode = WAL');
    this.#db.pragma(`synchronous = ${options.synchronous === 'NORMAL' ? 'NORMAL' : 'FULL'}`);
    // Events and push configs cascade from their task; the pragma is per connection, so set it on ours.
    this.#db.pragma('foreign_keys = ON');
    this.#group = new SqliteGroupCommit(this.#db);
  }

  /** Transactions committed and the largest batch so far (the group commit's effect, for benches and tests). */
  get groupCommitStats(): { commits: number; largestBatch: number } {
    return { commits: this.#group.commits, largestBatch: this.#group.largestBatch };
  }

  /** Applies pending schema migrations (safe to call from several processes at once). */
  countLiveKeys(): Promise<number> {
    return this.#read(() => Number((this.#stmt(SQL.countLiveKeys).get() as { n: number | bigint }).n));
  }

  schemaStatus(): Promise<SchemaStatus> {
    return this.#read(() => sqliteSchemaStatus(this.#db));
  }

  migrate(): Promise<MigrationReport> {
    return this.#read(() => migrateSqlite(this.#db, this.#clock));
  }

  #stmt(sql: string): Statement {
    let s = this.#statements.get(sql);
    if (!s) {
      s = this.#db.prepare(sql);
      this.#statements.set(sql, s);
    }
    return s;
  }

  /**
   * Runs `fn` atomically in the next group commit (`sqlite-group-commit.ts`): with the other writes of this turn of
   * the event loop, in one BEGIN IMMEDIATE transaction, in a savepoint of its own. Settles after the COMMIT.
   */
  #write<T>(fn: () => T): Promise<T> {
    return this.#group.run(fn);
  }

  #read<T>(fn: () => T): Promise<T> {
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  #task(scope: Scope, taskId: string): StoredTask | undefined {
    const row = this.#stmt(SQL.selectTask).get({ tenant: scope.tenant, owner: scope.owner, taskId }) as
      TaskRow | undefined;
    return row ? toStoredTask(row) : undefined;
  }

  createTask(scope: Scope, input: CreateTaskInput): Promise<CreateTaskResult> {
    const now = this.#clock.now();
    return this.#write(() => {
      checkLeaseGrant('createTask', input.lease);
      return createTaskTx((sql) => this.#stmt(sql), scope, input, now, this.#keyCounts);
    });
  }

  claimKey(scope: Scope, input: ClaimKeyInput): Promise<ClaimKeyResult> {
    const now = this.#clock.now();
    return this.#write(() =>
      claimKeyTx((sql) => this.#stmt(sql), scope, input.claim, input.taskId, input, now, this.#keyCounts),
    );
  }

  getTask(scope: Scope, taskId: string): Promise<StoredTask | undefined> {
    return this.#read(() => this.#task(scope, taskId));
  }

  listTasks(scope: Scope, query: TaskQuery): Promise<TaskPage> {
    return this.#read(() => {
      const after = query.pageToken === undefined ? undefined : decodePageToken(query.pageToken);
      const { count, page } = buildListStatements('a2a_tasks', scope, query, after, () => '?');
      // One read transaction: the count and the page see the same snapshot.
      return this.#db.transaction(() => {
        const total = this.#stmt(count.text).get(...count.values) as { n: number };
        const rows = this.#stmt(page.text).all(...page.values) as TaskRow[];
        return toTaskPage(rows.map(toStoredTask), query.pageSize, total.n);
      })();
    });
  }

  commit(scope: Scope, taskId: string, write: TaskWrite): Promise<CommitResult> {
    const now = this.#clock.now();
    return this.#write(() => {
      checkLeaseGrant('commit', write.lease);
      return commitTx((sql) => this.#stmt(sql), scope, taskId, write, now);
    }).then((result) => {
      if (result.ok) this.#notifier.notify(taskKey(scope, taskId), result.record);
      return result;
    });
  }

  readEvents(scope: Scope, taskId: string, afterSeq: number): Promise<StoredEvent[]> {
    return this.#read(() => this.#events(scope, taskId, afterSeq));
  }

  #events(scope: Scope, taskId: string, afterSeq: number): StoredEvent[] {
    const rows = this.#stmt(SQL.readEvents).all({
      tenant: scope.tenant,
      owner: scope.owner,
      taskId,
      afterSeq: Math.max(0, afterSeq),
    });
    return (rows as EventRow[]).map(toStoredEvent);
  }

  nextRecord(
    scope: Scope,
    taskId: string,
    afterSeq: number,
    signal: AbortSignal,
    until?: (record: StoredTask) => boolean,
    fresh?: boolean,
  ): Promise<StoredTask | undefined> {
    return pollNextRecord(() => this.#read(() => this.#task(scope, taskId)), afterSeq, signal, until, {
      closing: this.#closing.signal,
      notifier: this.#notifier,
      key: taskKey(scope, taskId),
      pollIntervalMs: this.#pollIntervalMs,
      fresh: fresh === true,
    });
  }

  watch(scope: Scope, taskId: string, afterSeq: number, signal: AbortSignal): AsyncIterable<StoredEvent> {
    const source = {
      currentSeq: () =>
        this.#read(
          () =>
            (
              this.#stmt(SQL.taskSeq).get({ tenant: scope.tenant, owner: scope.owner, taskId }) as
                { seq: number } | undefined
            )?.seq,
        ),
      readEvents: (after: number) => this.#read(() => this.#events(scope, taskId, after)),
    };
    return pollWatch(source, afterSeq, signal, {
      closing: this.#closing.signal,
      notifier: this.#notifier,
      key: taskKey(scope, taskId),
      pollIntervalMs: this.#pollIntervalMs,
    });
  }

  getKey(scope: Scope, key: string): Promise<KeyRecord | undefined> {
    return this.#read(() => {
      const row = this.#stmt(SQL.selectKey).get({ tenant: scope.tenant, owner: scope.owner, key }) as
        KeyRow | undefined;
      return row ? toKeyRecord(row) : undefined;
    });
  }

  releaseClaim(scope: Scope, taskId: string, key: string | undefined): Promise<boolean> {
    return this.#write(() => {
      // Push configs and events cascade with the task row.
      if (this.#stmt(SQL.releaseTask).run({ tenant: scope.tenant, owner: scope.owner, taskId }).changes === 0)
        return false;
      if (key !== undefined)
        this.#stmt(SQL.releaseKey).run({ tenant: scope.tenant, owner: scope.owner, key, taskId });
      return true;
    }).then((released) => {
      if (released) this.#notifier.notify(taskKey(scope, taskId));
      return released;
    });
  }

  releaseKey(scope: Scope, key: string, taskId: string, messageId: string): Promise<boolean> {
    // One conditional DELETE is atomic on its own; the IMMEDIATE transaction only serialises it with claims.
    return this.#write(
      () =>
        this.#stmt(SQL.releaseContinuationKey).run({
          tenant: scope.tenant,
          owner: scope.owner,
          key,
          taskId,
          messageId,
        }).changes > 0,
    );
  }

  putPushConfig(scope: Scope, taskId: string, config: TaskPushNotificationConfig): Promise<void> {
    if (!config.id) return Promise.resolve();
    const id = config.id;
    return this.#write(() => {
      this.#stmt(SQL.putPushConfig).run({
        tenant: scope.tenant,
        owner: scope.owner,
        taskId,
        id,
        config: JSON.stringify(config),
      });
    });
  }

  getPushConfig(scope: Scope, taskId: string, id: string): Promise<TaskPushNotificationConfig | undefined> {
    return this.#read(() => {
      const row = this.#stmt(SQL.getPushConfig).get({
        tenant: scope.tenant,
        owner: scope.owner,
        taskId,
        id,
      }) as { config: string } | undefined;
      return row ? toPushConfig(row.config) : undefined;
    });
  }

  listPushConfigs(scope: Scope, taskId: string): Promise<TaskPushNotificationConfig[]> {
    return this.#read(() => {
      const rows = this.#stmt(SQL.listPushConfigs).all({
        tenant: scope.tenant,
        owner: scope.owner,
        taskId,
      }) as { config: string }[];
      return rows.map((r) => toPushConfig(r.config));
    });
  }

  deletePushConfig(scope: Scope, taskId: string, id: string): Promise<boolean> {
    return this.#write(
      () =>
        this.#stmt(SQL.deletePushConfig).run({ tenant: scope.tenant, owner: scope.owner, taskId, id })
          .changes > 0,
    );
  }

  claimPushDeliveries(holder: string, claimMs: number, limit: number): Promise<PushDelivery[]> {
    const now = this.#clock.now();
    const stmt = (sql: string) => this.#stmt(sql);
    // Most polls find nothing: a read first, so they take no write lock from the request path.
    const any = () => {
      checkPushClaim('claimPushDeliveries', holder, claimMs, limit);
      return limit > 0 && anyClaimable(stmt, now);
    };
    return this.#read(any).then((any) =>
      any ? this.#write(() => claimTx(stmt, holder, now + claimMs, limit, now)) : [],
    );
  }

  recordPushDelivery(
    scope: Scope,
    taskId: string,
    configId: string,
    holder: string,
    outcome: PushOutcome,
  ): Promise<boolean> {
    const now = this.#clock.now();
    return this.#write(() => {
      const error = checkPushOutcome('recordPushDelivery', holder, outcome);
      const key = { tenant: scope.tenant, owner: scope.owner, taskId, configId, holder };
      return recordTx((sql) => this.#stmt(sql), key, outcome, error ?? null, now);
    });
  }

  getPushDelivery(scope: Scope, taskId: string, configId: string): Promise<PushDeliveryState | undefined> {
    return this.#read(() => selectState((sql) => this.#stmt(sql), scope, taskId, configId));
  }

  purgeExpired(policy: RetentionPolicy): Promise<PurgeReport> {
    return purgeSqlite(policy, {
      now: this.#clock.now(),
      tombstoneTtlMs: this.#tombstoneTtlMs,
      stmt: (sql) => this.#stmt(sql),
      write: (fn) => this.#write(fn),
      read: (fn) => this.#read(fn),
      // Deleted tasks end their watches; ended ones deliver their last event.
      touched: (t) => this.#notifier.notify(taskKey(t, t.id)),
    });
  }

  renewLease(scope: Scope, taskId: string, fence: number, owner: string, ttlMs: number): Promise<boolean> {
    const now = this.#clock.now();
    return this.#write(() => {
      checkOwnerAndTtl('renewLease', owner, ttlMs);
      const args = {
        tenant: scope.tenant,
        owner: scope.owner,
        taskId,
        fence,
        leaseOwner: owner,
        expiresAt: now + ttlMs,
      };
      return this.#stmt(SQL.renewLease).run(args).changes > 0;
    });
  }

  findLapsedLeases(limit: number): Promise<LapsedTask[]> {
    const now = this.#clock.now();
    return this.#read(() => {
      checkLimit('findLapsedLeases', limit);
      const rows = this.#stmt(SQL.findLapsedLeases).all({ now, limit }) as LapsedRow[];
      return rows.map(toLapsedTask);
    });
  }

  leaseCensus(): Promise<LeaseCensus> {
    const now = this.#clock.now();
    return this.#read(() => {
      const row = this.#stmt(SQL.leaseCensus).get({ now }) as CensusRow;
      return censusOf(row);
    });
  }

  recordParentRenewal(scope: Scope, taskId: string): Promise<boolean> {
    const now = this.#clock.now();
    return this.#write(
      () =>
        this.#stmt(SQL.recordParentRenewal).run({ tenant: scope.tenant, owner: scope.owner, taskId, now })
          .changes > 0,
    );
  }

  lastParentRenewal(scope: Scope, taskId: string): Promise<number | undefined> {
    return this.#read(() => {
      const row = this.#stmt(SQL.lastParentRenewal).get({
        tenant: scope.tenant,
        owner: scope.owner,
        taskId,
      }) as { parent_renewed_at: number | null } | undefined;
      return row?.parent_renewed_at ?? undefined;
    });
  }

  recordStep(scope: Scope, taskId: string, input: StepInput): Promise<StepResult> {
    const now = this.#clock.now();
    return this.#write(() => {
      const text = stepResultText(input);
      const step = { name: input.name, fence: input.fence, text };
      return recordStepTx((sql) => this.#stmt(sql), scope, taskId, step, now);
    });
  }

  getStep(scope: Scope, taskId: string, name: string): Promise<StepRecord | undefined> {
    return this.#read(() => selectStep((sql) => this.#stmt(sql), scope, taskId, name));
  }

  writeStepAttempt(scope: Scope, taskId: string, input: StepAttemptInput): Promise<StepAttemptResult> {
    const now = this.#clock.now();
    return this.#write(() => writeStepAttemptTx((sql) => this.#stmt(sql), scope, taskId, input, now));
  }

  getStepAttempt(scope: Scope, taskId: string, name: string): Promise<StepAttemptRecord | undefined> {
    return this.#read(() => selectStepAttempt((sql) => this.#stmt(sql), scope, taskId, name));
  }

  tryLead(role: string, holder: string, ttlMs: number): Promise<boolean> {
    const bad = leaseInputError(role, holder, ttlMs);
    if (bad) return Promise.reject(bad);
    const now = this.#clock.now();
    return this.#write(
      () => this.#stmt(SQL.tryLead).run({ role, holder, now, expiresAt: now + ttlMs }).changes > 0,
    );
  }

  close(): Promise<void> {
    this.#closing.abort();
    if (this.#ownsDb && this.#db.open) this.#db.close();
    return Promise.resolve();
  }
}
