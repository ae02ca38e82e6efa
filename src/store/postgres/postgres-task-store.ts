/**
 * The PostgreSQL `TaskStore`, shared by server replicas. Every write is one READ COMMITTED transaction whose
 * atomicity comes from the database: the key's primary key (`ON CONFLICT DO NOTHING`) for claims, a conditional
 * `UPDATE ... WHERE fence = $ [AND seq = $]` holding the task's row lock for compare-and-set, and the events
 * inserted in the same transaction. Timestamps come from the store's `Clock`, not the database's, so replicas
 * need roughly synchronised clocks (NTP); only TTLs, retention and leases read them, never the dedup decision.
 */
import { KeyCountCache } from '../sql/key-count-cache.js';
import type { TaskPushNotificationConfig } from '../../protocol/requests.js';
import { systemClock, type Clock } from '../clock.js';
import { decodePageToken } from '../page-token.js';
import type { KeyRecord, LapsedTask, LeaseCensus, StepRecord, StoredEvent, StoredTask } from '../records.js';
import {
  checkPushClaim,
  type PushDelivery,
  type PushDeliveryState,
  type PushOutcome,
} from '../push-delivery.js';
import {
  toPushDelivery,
  toPushDeliveryState,
  type PushClaimRow,
  type PushStateRow,
} from '../sql/push-rows.js';
import { DEFAULT_TOMBSTONE_TTL_MS, type PurgeReport, type RetentionPolicy } from '../retention.js';
import type { Scope } from '../scope.js';
import { EventNotifier, taskKey } from '../sql/event-notifier.js';
import { MAX_SETTLE_TURNS } from '../sql/settle.js';
import { StatementGroup } from '../sql/statement-group.js';
import { buildListStatements, toTaskPage } from '../sql/list-query.js';
import type { MigrationReport, SchemaStatus } from '../sql/migration.js';
import { pollNextRecord } from '../sql/poll-next-record.js';
import { pollWatch, unlimitedListeners } from '../sql/poll-watch.js';
import { leaseInputError } from '../sql/lease.js';
import { runPurge } from '../sql/purge-loop.js';
import {
  toInt,
  toKeyRecord,
  toPushConfig,
  toStoredEvent,
  toStoredTask,
  type EventRow,
  type KeyRow,
  type TaskRow,
} from '../sql/sql-rows.js';
import { stepResultText } from '../sql/step-input.js';
import { checkLeaseGrant } from '../sql/worker-lease.js';
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
import { claimKeyPg } from './pg-claim-key.js';
import { canClaimInOneStatement, claimAndCreatePg, createTaskPg } from './pg-create-task.js';
import { migratePostgres, postgresSchemaStatus } from './pg-migrate.js';
import type { PgPoolLike, PgQueryable } from './pg-pool-like.js';
import { commitPg } from './pg-commit.js';
import {
  claimAndCreateMany,
  commitKey,
  commitMany,
  logBatchFallback,
  type ClaimItem,
  type CommitItem,
} from './pg-group-commit.js';
import { pgDateUndatedTombstones, pgPurgeBatch, pgPurgeRemains, type PgPurgeCutoffs } from './pg-purge.js';
import { recordPushDeliveryPg } from './pg-push.js';
import { findLapsedLeasesPg, leaseCensusPg, renewLeasePg } from './pg-leases.js';
import { pgStatements, type PgStatements } from './pg-statements.js';
import { recordStepPg, selectStepPg } from './pg-steps.js';
import {
  pgStepAttemptStatements,
  selectStepAttemptPg,
  writeStepAttemptPg,
  type PgStepAttemptStatements,
} from './pg-step-attempts.js';
import type { StepAttemptInput, StepAttemptRecord, StepAttemptResult } from '../step-attempts.js';
import { pgTables, type PgTables } from './pg-tables.js';
import { inTransaction, retryingSerialization } from './pg-transaction.js';

/**
 * Statements of one kind (claims, commits) in flight at once per store; more arrivals wait and go as one batch
 * (ADR 0049). One measured best: PostgreSQL's work per statement, not the wait, is what a send pays for (keyed
 * SendMessage at 16 connections, in one session's runs: 0.80 of @a2a-js with one, 0.65 with two, 0.62 with four).
 */
const GROUP_IN_FLIGHT = 1;

/**
 * Tasks this store creates before it runs ANALYZE on the tasks table, once. A fresh table has no statistics, and
 * the commit batch's prepared plan, made on each connection within its first few batches, then joins the batch
 * with a sequential scan of the tasks (right for an empty table); that plan stays until something invalidates
 * it, which autovacuum's first ANALYZE does only up to a minute later, by when the scan covers a hundred thousand
 * rows (measured: a fresh database answered 415 keyed sends a second instead of 2,500 for its first minute). By
 * ten thousand rows the index is the planner's choice, and the ANALYZE makes every connection plan again.
 */
const ANALYZE_AFTER_CREATES = 10_000;

/** Options of the PostgreSQL store. */
export interface PostgresTaskStoreOptions {
  /** A `pg.Pool`, or anything with its shape (`PgPoolLike`), e.g. `pglitePool(new PGlite())`. */
  pool: PgPoolLike;
  /** Schema holding the tables (default `public`); `migrate()` creates it if missing. */
  schema?: string;
  /** Source of every timestamp and cutoff (default: the wall clock). Replicas need roughly synchronised clocks. */
  clock?: Clock;
  /** Longest delay before `watch` sees an event committed by another replica (default 50 ms). */
  pollIntervalMs?: number;
  /** Tombstone age used when a retention policy names none (default 7 days). */
  tombstoneTtlMs?: number;
  /** End the pool on `close()` (default false: a pool you pass in stays yours). */
  closePool?: boolean;
}

/** A TaskStore in PostgreSQL, safe to share between processes and replicas. */
export class PostgresTaskStore implements TaskStore {
  readonly capabilities: StoreCapabilities = {
    idempotency: true,
    sharedAcrossProcesses: true,
    keysOnDisk: true,
  };
  readonly supportsIdempotency = true;

  readonly #pool: PgPoolLike;
  readonly #tables: PgTables;
  readonly #sql: PgStatements;
  readonly #attemptSql: PgStepAttemptStatements;
  readonly #clock: Clock;
  readonly #pollIntervalMs: number;
  /** Spares the per-claim COUNT(*) of a scope's live keys while the cap is far away. */
  readonly #keyCounts = new KeyCountCache();
  readonly #tombstoneTtlMs: number;
  readonly #closePool: boolean;
  readonly #notifier = new EventNotifier();
  /**
   * Aborts every wait when the store closes. Each wait listens to it while it waits, so it has as many listeners
   * as there are waiting requests: no limit (Node's default of ten would warn of a leak on any busy server).
   */
  readonly #closing = unlimitedListeners(new AbortController());
  /** Group commit (ADR 0049): keyed sends' claims, and commits, that arrive while one is in flight go together. */
  readonly #claims: StatementGroup<ClaimItem, CreateTaskResult | null>;
  readonly #commits: StatementGroup<CommitItem, CommitResult>;
  /** Tasks created by this store, counted up to ANALYZE_AFTER_CREATES. */
  #created = 0;

  constructor(options: PostgresTaskStoreOptions) {
    this.#pool = options.pool;
    this.#tables = pgTables(options.schema ?? 'public');
    this.#sql = pgStatements(this.#tables);
    this.#attemptSql = pgStepAttemptStatements(this.#tables);
    this.#clock = options.clock ?? systemClock;
    this.#pollIntervalMs = options.pollIntervalMs ?? 50;
    this.#tombstoneTtlMs = options.tombstoneTtlMs ?? DEFAULT_TOMBSTONE_TTL_MS;
    this.#closePool = options.closePool ?? false;
    this.#claims = new StatementGroup({
      runOne: async ({ scope, input, now }) =>
        (await claimAndCreatePg(this.#pool, this.#sql, scope, input, now, this.#keyCounts)) ?? null,
      runMany: (items) => claimAndCreateMany(this.#pool, this.#sql, items, this.#keyCounts),
      maxInFlight: GROUP_IN_FLIGHT,
      settleTurns: MAX_SETTLE_TURNS,
      onBatchError: (err, size) => logBatchFallback('claims', err, size),
    });
    this.#commits = new StatementGroup({
      // One statement, so no BEGIN / COMMIT round trips (ADR 0047); retried like a transaction on a deadlock.
      runOne: ({ scope, taskId, write, now }) =>
        retryingSerialization(() =>
          commitPg({ c: this.#pool, sql: this.#sql, tables: this.#tables }, scope, taskId, write, now),
        ),
      runMany: (items) => commitMany(this.#pool, this.#sql, items),
      keyOf: commitKey,
      maxInFlight: GROUP_IN_FLIGHT,
      settleTurns: MAX_SETTLE_TURNS,
      onBatchError: (err, size) => logBatchFallback('commits', err, size),
    });
  }

  /**
   * What the group commit batched so far (ADR 0049), per kind: batch statements sent, the largest, and those that
   * threw (their items then ran alone).
   */
  get groupCommit(): Record<'claims' | 'commits', { batches: number; largest: number; failed: number }> {
    const of = (g: { batches: number; largestBatch: number; failedBatches: number }) => ({
      batches: g.batches,
      largest: g.largestBatch,
      failed: g.failedBatches,
    });
    return { claims: of(this.#claims), commits: of(this.#commits) };
  }

  /** The schema holding the tables. */
  get schema(): string {
    return this.#tables.schema;
  }

  /** Applies pending migrations under an advisory lock (safe from several replicas at once). */
  async countLiveKeys(): Promise<number> {
    const { rows } = await this.#pool.query(this.#sql.countLiveKeys, []);
    return Number((rows[0] as { n: number | string } | undefined)?.n ?? 0);
  }

  schemaStatus(): Promise<SchemaStatus> {
    return postgresSchemaStatus(this.#pool, this.#tables);
  }

  migrate(): Promise<MigrationReport> {
    return migratePostgres(this.#pool, this.#tables, this.#clock);
  }

  async #task(q: PgQueryable, scope: Scope, taskId: string): Promise<StoredTask | undefined> {
    const row = (await q.query(this.#sql.selectTask, [scope.tenant, scope.owner, taskId])).rows[0];
    return row ? toStoredTask(row as unknown as TaskRow) : undefined;
  }

  async createTask(scope: Scope, input: CreateTaskInput): Promise<CreateTaskResult> {
    checkLeaseGrant('createTask', input.lease);
    const now = this.#clock.now();
    const result =
      (canClaimInOneStatement(input, this.#keyCounts, scope, now)
        ? await this.#claims.run({ scope, input, now })
        : null) ??
      (await inTransaction(this.#pool, (c) =>
        createTaskPg(
          { c, sql: this.#sql, schema: this.#tables.schema, counts: this.#keyCounts },
          scope,
          input,
          now,
        ),
      ));
    if (result.outcome === 'created' && ++this.#created === ANALYZE_AFTER_CREATES) this.#analyzeTasks();
    return result;
  }

  /** ANALYZE of the tasks table, in the background (see ANALYZE_AFTER_CREATES); a failure costs only speed. */
  #analyzeTasks(): void {
    this.#pool.query(`ANALYZE ${this.#tables.tasks}`).catch((err: unknown) => {
      process.emitWarning(
        `a2a-once PostgreSQL store: ANALYZE of the tasks table failed (${err instanceof Error ? err.message : String(err)}); autovacuum will do it later`,
        { code: 'A2A_ONCE_ANALYZE' },
      );
    });
  }

  claimKey(scope: Scope, input: ClaimKeyInput): Promise<ClaimKeyResult> {
    const now = this.#clock.now();
    return inTransaction(this.#pool, (c) =>
      claimKeyPg(
        { c, sql: this.#sql, schema: this.#tables.schema, counts: this.#keyCounts },
        scope,
        input.claim,
        input.taskId,
        input,
        now,
      ),
    );
  }

  getTask(scope: Scope, taskId: string): Promise<StoredTask | undefined> {
    return this.#task(this.#pool, scope, taskId);
  }

  async listTasks(scope: Scope, query: TaskQuery): Promise<TaskPage> {
    const after = query.pageToken === undefined ? undefined : decodePageToken(query.pageToken);
    const { count, page } = buildListStatements(this.#tables.tasks, scope, query, after, (n) => `$${n}`);
    // REPEATABLE READ: the count and the page see one snapshot.
    return inTransaction(this.#pool, async (c) => {
      await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const total = await c.query(count.text, count.values);
      const rows = await c.query(page.text, page.values);
      const records = rows.rows.map((r) => toStoredTask(r as unknown as TaskRow));
      return toTaskPage(records, query.pageSize, toInt(total.rows[0]?.n));
    });
  }

  async commit(scope: Scope, taskId: string, write: TaskWrite): Promise<CommitResult> {
    checkLeaseGrant('commit', write.lease);
    const now = this.#clock.now();
    const result = await this.#commits.run({ scope, taskId, write, now });
    if (result.ok) this.#notifier.notify(taskKey(scope, taskId), result.record);
    return result;
  }

  async readEvents(scope: Scope, taskId: string, afterSeq: number): Promise<StoredEvent[]> {
    const args = [scope.tenant, scope.owner, taskId, Math.max(0, afterSeq)];
    const { rows } = await this.#pool.query(this.#sql.readEvents, args);
    return rows.map((r) => toStoredEvent(r as unknown as EventRow));
  }

  nextRecord(
    scope: Scope,
    taskId: string,
    afterSeq: number,
    signal: AbortSignal,
    until?: (record: StoredTask) => boolean,
    fresh?: boolean,
  ): Promise<StoredTask | undefined> {
    return pollNextRecord(() => this.getTask(scope, taskId), afterSeq, signal, until, {
      closing: this.#closing.signal,
      notifier: this.#notifier,
      key: taskKey(scope, taskId),
      pollIntervalMs: this.#pollIntervalMs,
      fresh: fresh === true,
    });
  }

  watch(scope: Scope, taskId: string, afterSeq: number, signal: AbortSignal): AsyncIterable<StoredEvent> {
    const source = {
      currentSeq: async () => {
        const { rows } = await this.#pool.query(this.#sql.taskSeq, [scope.tenant, scope.owner, taskId]);
        return rows[0] ? toInt(rows[0].seq) : undefined;
      },
      readEvents: (after: number) => this.readEvents(scope, taskId, after),
    };
    return pollWatch(source, afterSeq, signal, {
      closing: this.#closing.signal,
      notifier: this.#notifier,
      key: taskKey(scope, taskId),
      pollIntervalMs: this.#pollIntervalMs,
    });
  }

  async getKey(scope: Scope, key: string): Promise<KeyRecord | undefined> {
    const row = (await this.#pool.query(this.#sql.selectKey, [scope.tenant, scope.owner, key])).rows[0];
    return row ? toKeyRecord(row as unknown as KeyRow) : undefined;
  }

  async releaseClaim(scope: Scope, taskId: string, key: string | undefined): Promise<boolean> {
    const released = await inTransaction(this.#pool, async (c) => {
      // Events and push configs cascade with the task row; the key has no foreign key and goes explicitly.
      const gone = await c.query(this.#sql.releaseTask, [scope.tenant, scope.owner, taskId]);
      if (gone.rows.length === 0) return false;
      if (key !== undefined) await c.query(this.#sql.releaseKey, [scope.tenant, scope.owner, key, taskId]);
      return true;
    });
    if (released) this.#notifier.notify(taskKey(scope, taskId));
    return released;
  }

  async releaseKey(scope: Scope, key: string, taskId: string, messageId: string): Promise<boolean> {
    // One conditional DELETE is atomic on its own: it frees the key only if it is still this message's claim.
    const args = [scope.tenant, scope.owner, key, taskId, messageId];
    return (await this.#pool.query(this.#sql.releaseContinuationKey, args)).rows.length > 0;
  }

  async putPushConfig(scope: Scope, taskId: string, config: TaskPushNotificationConfig): Promise<void> {
    if (!config.id) return;
    const args = [scope.tenant, scope.owner, taskId, config.id, JSON.stringify(config)];
    await this.#pool.query(this.#sql.putPushConfig, args);
  }

  async getPushConfig(
    scope: Scope,
    taskId: string,
    id: string,
  ): Promise<TaskPushNotificationConfig | undefined> {
    const row = (await this.#pool.query(this.#sql.getPushConfig, [scope.tenant, scope.owner, taskId, id]))
      .rows[0];
    return row ? toPushConfig(row.config) : undefined;
  }

  async listPushConfigs(scope: Scope, taskId: string): Promise<TaskPushNotificationConfig[]> {
    const { rows } = await this.#pool.query(this.#sql.listPushConfigs, [scope.tenant, scope.owner, taskId]);
    return rows.map((r) => toPushConfig(r.config));
  }

  async deletePushConfig(scope: Scope, taskId: string, id: string): Promise<boolean> {
    const { rows } = await this.#pool.query(this.#sql.deletePushConfig, [
      scope.tenant,
      scope.owner,
      taskId,
      id,
    ]);
    return rows.length > 0;
  }

  async claimPushDeliveries(holder: string, claimMs: number, limit: number): Promise<PushDelivery[]> {
    checkPushClaim('claimPushDeliveries', holder, claimMs, limit);
    if (limit === 0) return [];
    const now = this.#clock.now();
    const { rows } = await this.#pool.query(this.#sql.claimPush, [holder, now + claimMs, now, limit]);
    return rows.map((r) => toPushDelivery(r as unknown as PushClaimRow));
  }

  async recordPushDelivery(
    scope: Scope,
    taskId: string,
    configId: string,
    holder: string,
    outcome: PushOutcome,
  ): Promise<boolean> {
    const cursor = { scope, taskId, configId, holder };
    return recordPushDeliveryPg(this.#pool, this.#sql, cursor, outcome, this.#clock.now());
  }

  async getPushDelivery(
    scope: Scope,
    taskId: string,
    configId: string,
  ): Promise<PushDeliveryState | undefined> {
    const args = [scope.tenant, scope.owner, taskId, configId];
    const row = (await this.#pool.query(this.#sql.pushState, args)).rows[0];
    return row ? toPushDeliveryState(row as unknown as PushStateRow) : undefined;
  }

  purgeExpired(policy: RetentionPolicy): Promise<PurgeReport> {
    const now = this.#clock.now();
    const cut: PgPurgeCutoffs = {
      now,
      taskCutoff: now - policy.terminalMaxAgeMs,
      abandonCutoff: policy.interruptedMaxAgeMs === undefined ? null : now - policy.interruptedMaxAgeMs,
      tombCutoff: now - (policy.tombstoneMaxAgeMs ?? this.#tombstoneTtlMs),
    };
    return runPurge(policy, {
      prepare: () => pgDateUndatedTombstones(this.#pool, this.#sql, now),
      runBatch: async (limit) => {
        const { result, touched } = await pgPurgeBatch(this.#pool, this.#sql, this.#tables, cut, limit);
        // Deleted tasks end their watches; ended ones deliver their last event.
        for (const t of touched) this.#notifier.notify(taskKey(t, t.id));
        return result;
      },
      hasPurgeable: () => pgPurgeRemains(this.#pool, this.#sql, cut),
    });
  }

  renewLease(scope: Scope, taskId: string, fence: number, owner: string, ttlMs: number): Promise<boolean> {
    return renewLeasePg(this.#pool, this.#sql, scope, taskId, { fence, owner, ttlMs }, this.#clock.now());
  }

  leaseCensus(): Promise<LeaseCensus> {
    return leaseCensusPg(this.#pool, this.#sql, this.#clock.now());
  }

  findLapsedLeases(limit: number): Promise<LapsedTask[]> {
    return findLapsedLeasesPg(this.#pool, this.#sql, limit, this.#clock.now());
  }

  async recordParentRenewal(scope: Scope, taskId: string): Promise<boolean> {
    const args = [scope.tenant, scope.owner, taskId, this.#clock.now()];
    return (await this.#pool.query(this.#sql.recordParentRenewal, args)).rows.length > 0;
  }

  async lastParentRenewal(scope: Scope, taskId: string): Promise<number | undefined> {
    const args = [scope.tenant, scope.owner, taskId];
    const { rows } = await this.#pool.query(this.#sql.lastParentRenewal, args);
    const at = (rows[0] as { parent_renewed_at?: unknown } | undefined)?.parent_renewed_at;
    return at === null || at === undefined ? undefined : toInt(at);
  }

  async recordStep(scope: Scope, taskId: string, input: StepInput): Promise<StepResult> {
    const text = stepResultText(input);
    const step = { name: input.name, fence: input.fence, text };
    return recordStepPg(this.#pool, this.#sql, scope, taskId, step, this.#clock.now());
  }

  getStep(scope: Scope, taskId: string, name: string): Promise<StepRecord | undefined> {
    return selectStepPg(this.#pool, this.#sql, scope, taskId, name);
  }

  writeStepAttempt(scope: Scope, taskId: string, input: StepAttemptInput): Promise<StepAttemptResult> {
    return writeStepAttemptPg(this.#pool, this.#attemptSql, scope, taskId, input, this.#clock.now());
  }

  getStepAttempt(scope: Scope, taskId: string, name: string): Promise<StepAttemptRecord | undefined> {
    return selectStepAttemptPg(this.#pool, this.#attemptSql, scope, taskId, name);
  }

  async tryLead(role: string, holder: string, ttlMs: number): Promise<boolean> {
    const bad = leaseInputError(role, holder, ttlMs);
    if (bad) throw bad;
    const now = this.#clock.now();
    const { rows } = await this.#pool.query(this.#sql.tryLead, [role, holder, now + ttlMs, now]);
    return rows.length > 0;
  }

  async close(): Promise<void> {
    this.#closing.abort();
    if (this.#closePool) await this.#pool.end?.();
  }
}
