/**
 * Recovery of tasks whose worker was lost (docs/semantics.md §4, ADR 0037). A SUBMITTED or WORKING task whose
 * lease lapsed lost its worker: the process died, or lost the store for longer than the lease. Any replica may
 * notice (its periodic sweep, its start-up run, or a retry, GetTask or subscription that touches the task) and
 * take the task over with one fenced commit: expecting the fence and version it read, raising the fence by one.
 * Of any number of racing recoverers exactly one commit lands; the others see a refusal and leave the task be.
 * The lost worker, should it come back, is refused at its next write or renewal.
 *
 * After the takeover the task is resumed (the agent declares itself `resumable`: the turn runs again in this
 * process under the new fence, with `ctx.isResumed`) or ended FAILED with a status message saying the worker
 * was lost. A task resumed `maxResumes` times already is failed instead: a turn that kills every process it
 * runs on must not take the replicas down one after the other.
 */
import { METRIC, OUTCOME_ATTR } from '../observability/metric-names.js';
import { countSafely, type ServerMetrics } from '../observability/metrics.js';
import { isoAt } from '../../protocol/iso-time.js';
import type { Task, TaskStatus, TaskStatusUpdateEvent } from '../../protocol/model.js';
import type { Clock } from '../../store/clock.js';
import type { LapsedTask, StoredTask } from '../../store/records.js';
import type { Scope } from '../../store/scope.js';
import type { TaskStore, TaskWrite } from '../../store/task-store.js';
import { errorFields, logSafely } from '../observability/error-log.js';
import type { ServerLogger } from '../observability/logger.js';
import { agentMessage } from '../runner/message-init.js';
import type { Runner } from '../runner/runner.js';
import type { TurnLeases } from '../runner/turn-lease.js';
import { newWriteId } from '../runner/write-id.js';
import { DEFAULT_WRITE_RETRY, retryThrown, type WriteRetryPolicy } from '../runner/write-retry.js';
import { applyStatusUpdate } from '../task-events.js';
import type { LostCreations } from './lost-creation.js';
import {
  leaseLapsed,
  lostTurnOf,
  resumesOf,
  takeoverMetadata,
  takeoverText,
  type FailureReason,
} from './lost-turn.js';

/** A task is resumed at most this many times by default; the next loss fails it. */
export const DEFAULT_MAX_RESUMES = 3;

/**
 * Tasks read per `findLapsedLeases` call in a sweep (ADR 0132). The listing carries each task's record (ADR 0131),
 * so a batch of 1,000 is about a megabyte; fewer listings, and fewer lanes idle while a batch's last takeovers
 * land, than with 100.
 */
export const DEFAULT_RECOVERY_BATCH = 1000;

/**
 * Tasks of a batch taken over at once (ADR 0130, 128 since ADR 0132). One at a time, a takeover costs a commit
 * round trip, and a server starting after a crash that left 100,000 tasks running spent minutes on them; at once,
 * the stores' group commits fold the takeovers into a few transactions. 128 is two of PostgreSQL's group-commit
 * batches (64 each): one in flight while the next fills, so the database never waits for the server. Racing
 * takeovers of one task are safe anyway (a fenced commit: one lands), so the bound is only on what one sweep
 * holds in flight.
 */
export const DEFAULT_RECOVERY_CONCURRENCY = 128;

/**
 * Turns that recovery resumed, running in this process at once (ADR 0137). A start-up after a crash can find
 * thousands of resumable tasks; started all at once, their agents would take the process's memory and flood
 * whatever they call. Past the bound a sweep leaves the rest lapsed (`deferred`) for the next sweep, here once a
 * resumed turn ends, or on a replica with room.
 */
export const DEFAULT_MAX_RESUMED_TURNS = 256;

/** Task ids of each outcome a sweep's summary line names; the counts cover the rest (ADR 0131). */
export const SUMMARY_TASK_IDS = 20;

/** What a recovery sweep did. */
export interface RecoveryReport {
  /** Tasks taken over and run again here. */
  readonly resumed: number;
  /** Tasks taken over and ended FAILED. */
  readonly failed: number;
  /** Tasks whose worker turned out to be alive in this process: their lease was renewed instead. */
  readonly renewed: number;
  /** Tasks another recoverer (or the worker itself) changed first: left as they are. */
  readonly skipped: number;
  /**
   * Resumable tasks left lapsed because this process already ran `maxResumedTurns` resumed turns (ADR 0137): the
   * next sweep takes them, here when a turn ends, or on another replica.
   */
  readonly deferred: number;
}

/** What recovery needs. */
export interface TaskRecoveryInit {
  readonly store: TaskStore;
  readonly runner: Runner;
  readonly clock: Clock;
  readonly logger: ServerLogger;
  readonly leases: TurnLeases;
  /** Whether the agent declared itself resumable. */
  readonly resumable: boolean;
  readonly maxResumes?: number;
  readonly batchSize?: number;
  /** Takeovers of one batch in flight at once (default 128). */
  readonly concurrency?: number;
  /** Turns resumed by recovery running here at once (default 256; ADR 0137). */
  readonly maxResumedTurns?: number;
  /** How a takeover the store fails is retried (default: the worker's writes' schedule). */
  readonly retry?: WriteRetryPolicy;
  /** This process's new tasks whose creation answer was lost: started, never failed as lost (ADR 0052). */
  readonly lostCreations?: LostCreations;
  /** Takeovers by outcome (ADR 0094). */
  readonly metrics?: ServerMetrics;
}

/** The running tasks still under another worker's lease, as start-up reports them. */
export interface StillLeased {
  /** SUBMITTED or WORKING tasks whose lease has not lapsed: a sibling replica's, or a stopped predecessor's. */
  readonly held: number;
  /** In how long the first of those leases lapses (ms); absent when `held` is 0. */
  readonly firstLapseInMs?: number;
}

type Outcome = 'resumed' | 'failed' | 'renewed' | 'skipped' | 'deferred';

/** Takes over tasks whose worker was lost. */
export class TaskRecovery {
  readonly #maxResumes: number;
  readonly #batchSize: number;
  readonly #concurrency: number;
  readonly #maxResumedTurns: number;
  /** Resumed turns running, and takeovers in flight that will start one if they land. */
  #resumedSlots = 0;
  readonly #slotFreed = new Set<() => void>();

  constructor(private readonly init: TaskRecoveryInit) {
    this.#maxResumes = wholeNumber('recovery maxResumes', init.maxResumes ?? DEFAULT_MAX_RESUMES, 0);
    this.#batchSize = wholeNumber('recovery batchSize', init.batchSize ?? DEFAULT_RECOVERY_BATCH, 1);
    this.#concurrency = wholeNumber(
      'recovery concurrency',
      init.concurrency ?? DEFAULT_RECOVERY_CONCURRENCY,
      1,
    );
    this.#maxResumedTurns = wholeNumber(
      'recovery maxResumedTurns',
      init.maxResumedTurns ?? DEFAULT_MAX_RESUMED_TURNS,
      1,
    );
  }

  /** Resumed turns running here now (and takeovers in flight that would start one). */
  get resumedTurns(): number {
    return this.#resumedSlots;
  }

  /**
   * Calls `listener` once, the next time a resumed turn ends and frees a slot (the schedule then sweeps again
   * rather than wait out its interval); returns a function that cancels the call.
   */
  onSlotFreed(listener: () => void): () => void {
    const once = () => {
      this.#slotFreed.delete(once);
      listener();
    };
    this.#slotFreed.add(once);
    return () => this.#slotFreed.delete(once);
  }

  #releaseSlot(): void {
    this.#resumedSlots--;
    for (const l of [...this.#slotFreed]) l();
  }

  /** Whether `record` lost its worker as of now (cheap: no store call; callers check it before `recover`). */
  lapsed(record: StoredTask): boolean {
    return leaseLapsed(record, this.init.clock.now());
  }

  /**
   * Recovers a task a request touched, if its lease lapsed, and returns the record to answer with: the one
   * after the takeover, the latest one when another recoverer won, or `record` itself when nothing was to be
   * done. Never throws: a store error is logged and the request is answered with what it read.
   */
  async touched(scope: Scope, record: StoredTask): Promise<StoredTask> {
    if (!this.lapsed(record)) return record;
    try {
      // A takeover nobody else reports on: its own line at warn.
      return (await this.#recover(scope, record, 'warn')).record;
    } catch (err) {
      logSafely(this.init.logger, 'warn', 'could not recover a task whose worker was lost', {
        taskId: record.task.id,
        ...errorFields(err),
      });
      return record;
    }
  }

  /**
   * One sweep over every scope: lists tasks whose lease lapsed, in batches, and recovers each (`concurrency` at
   * once). Stops when a
   * batch comes back short or changed nothing (what is left is being handled by others, or failing: the next
   * sweep tries again). A store error ends the sweep and is thrown to the caller (the schedule logs it).
   */
  async runOnce(): Promise<RecoveryReport> {
    const count = { resumed: 0, failed: 0, renewed: 0, skipped: 0, deferred: 0 };
    const named: Record<'resumed' | 'failed', string[]> = { resumed: [], failed: [] };
    for (;;) {
      const lapsed = await this.init.store.findLapsedLeases(this.#batchSize);
      let progress = 0;
      let next = 0;
      let failure: { error: unknown } | undefined;
      // `concurrency` lanes, each taking the batch's next task until none is left or a store error stopped one.
      const lane = async (): Promise<void> => {
        while (failure === undefined && next < lapsed.length) {
          const l = lapsed[next++]!;
          try {
            const outcome = await this.#recoverLapsed(l);
            count[outcome]++;
            if ((outcome === 'resumed' || outcome === 'failed') && named[outcome].length < SUMMARY_TASK_IDS)
              named[outcome].push(l.taskId);
            if (outcome !== 'skipped' && outcome !== 'deferred') progress++;
          } catch (error) {
            failure ??= { error };
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(this.#concurrency, lapsed.length) }, lane));
      // The first store error ends the sweep, once the takeovers already in flight have settled.
      if (failure !== undefined) {
        this.#summarise(count, named);
        throw failure.error;
      }
      // Deferred tasks are still lapsed, first in the listing's order: another batch would list them again.
      if (lapsed.length < this.#batchSize || progress === 0 || count.deferred > 0) {
        this.#summarise(count, named);
        return count;
      }
    }
  }

  /**
   * The sweep's one warn line (ADR 0131): how many tasks it took over and how, naming the first
   * `SUMMARY_TASK_IDS` of each outcome (comma-separated), so the few tasks of an everyday loss are named at warn
   * and a start-up after a crash of thousands writes one bounded line. Each takeover also has its own line at
   * info, and the task itself says what happened in its status message. A sweep that took nothing over says
   * nothing.
   */
  #summarise(count: Record<Outcome, number>, named: Record<'resumed' | 'failed', string[]>): void {
    if (count.resumed + count.failed === 0) return;
    logSafely(this.init.logger, 'warn', 'recovered tasks whose worker was lost', {
      tasks: count.resumed + count.failed,
      resumed: count.resumed,
      failed: count.failed,
      renewed: count.renewed,
      skipped: count.skipped,
      ...(count.deferred > 0 ? { deferred: count.deferred } : {}),
      ...(named.resumed.length > 0 ? { resumedTaskIds: named.resumed.join(',') } : {}),
      ...(named.failed.length > 0 ? { failedTaskIds: named.failed.join(',') } : {}),
    });
  }

  /**
   * Recovers one listed task from the record the listing read with it (ADR 0131): no second read. A task that
   * changed since it was listed is refused by the takeover's compare-and-set on its fence and seq (then
   * `skipped`), so a stale listing costs nothing but that commit.
   */
  async #recoverLapsed(l: LapsedTask): Promise<Outcome> {
    const scope: Scope = { tenant: l.tenant, owner: l.owner };
    return this.lapsed(l.record) ? (await this.#recover(scope, l.record, 'info')).outcome : 'skipped';
  }

  /**
   * The tasks still leased by a worker elsewhere (the store's `leaseCensus`), or undefined when the store takes
   * no census or it failed (logged): what start-up cannot recover yet, and when the first of it lapses.
   */
  async stillLeased(): Promise<StillLeased | undefined> {
    const { store, clock } = this.init;
    if (!store.leaseCensus) return undefined;
    try {
      const census = await store.leaseCensus();
      if (census.firstExpiresAt === undefined) return { held: census.held };
      return { held: census.held, firstLapseInMs: Math.max(0, census.firstExpiresAt - clock.now()) };
    } catch (err) {
      logSafely(this.init.logger, 'warn', 'could not count the tasks still leased', errorFields(err));
      return undefined;
    }
  }

  /**
   * Renews a live local worker, or takes the task over and resumes or fails it; the takeover's line is written at
   * `level` (info in a sweep, which sums up at warn; warn for a task a request touched).
   */
  async #recover(
    scope: Scope,
    record: StoredTask,
    level: 'info' | 'warn',
  ): Promise<{ outcome: Outcome; record: StoredTask }> {
    const { store, runner } = this.init;
    const taskId = record.task.id;
    const local = runner.liveWorker(scope, taskId, record.fence);
    if (local) {
      // The worker is alive in this process; only its renewals were late (a long pause, a store outage).
      const renewal = await local.renewLease();
      const latest = (await store.getTask(scope, taskId)) ?? record;
      return { outcome: renewal === 'renewed' ? 'renewed' : 'skipped', record: latest };
    }
    if (this.init.lostCreations?.isBeingCreated(scope, taskId)) {
      // Its creator in this process is still retrying the claim-and-create: the task is the creator's to start.
      return { outcome: 'skipped', record };
    }
    if (this.init.lostCreations?.isUnstarted(scope, record)) {
      // Its agent never started: this process never got the answer that created it. Started, not failed.
      const started = await this.init.lostCreations.start(scope, record);
      if (started) return { outcome: 'resumed', record: started };
      return { outcome: 'skipped', record: (await store.getTask(scope, taskId)) ?? record };
    }
    const turn = lostTurnOf(record.task);
    const resumes = resumesOf(record.task);
    const failure: FailureReason | undefined = !this.init.resumable
      ? 'not-resumable'
      : turn === undefined
        ? 'no-turn'
        : resumes >= this.#maxResumes
          ? 'too-many-resumes'
          : undefined;
    if (failure === undefined) {
      // A slot for the turn this takeover starts, held from before the commit (lanes run at once) to the turn's end.
      if (this.#resumedSlots >= this.#maxResumedTurns) return { outcome: 'deferred', record };
      this.#resumedSlots++;
    }
    let started = false;
    try {
      const taken = await this.#commitTakeover(scope, record, turn, failure, resumes, level);
      started = taken.started;
      return { outcome: taken.outcome, record: taken.record };
    } finally {
      if (failure === undefined && !started) this.#releaseSlot();
    }
  }

  /** The fenced takeover commit, then the resumed turn (if it resumes) or nothing more (failed). */
  async #commitTakeover(
    scope: Scope,
    record: StoredTask,
    turn: ReturnType<typeof lostTurnOf>,
    failure: FailureReason | undefined,
    resumes: number,
    level: 'info' | 'warn',
  ): Promise<{ outcome: Outcome; record: StoredTask; started: boolean }> {
    const { store, runner } = this.init;
    const taskId = record.task.id;
    const fence = record.fence + 1;
    // One write however often it is tried: a takeover that landed though its answer was lost is recognised by its
    // write id and its turn started here, rather than left to lapse again (ADR 0052).
    const write = this.#takeover(record, fence, failure, resumes);
    const policy = this.init.retry ?? DEFAULT_WRITE_RETRY;
    const res = await retryThrown(
      () => store.commit(scope, taskId, write),
      policy,
      policy.writeBudgetMs,
      () => {},
    );
    if (!res.ok) return { outcome: 'skipped', record: res.current ?? record, started: false };
    const outcome = failure === undefined ? 'resumed' : 'failed';
    countSafely(this.init.metrics, METRIC.recoveries.name, { [OUTCOME_ATTR]: outcome });
    logSafely(this.init.logger, level, 'recovered a task whose worker was lost', {
      taskId,
      outcome,
      ...(failure === undefined ? {} : { reason: failure }),
      lostLease: record.lease?.owner,
      fence,
    });
    if (failure === undefined && turn !== undefined) {
      const ended = runner.start({
        scope,
        record: res.record,
        message: turn.message,
        isContinuation: turn.isContinuation,
        // The call that requested extensions is gone with the lost worker; the resumed turn has none.
        requestedExtensions: [],
        principal: scope.owner === '' ? undefined : scope.owner,
        isResumed: true,
      });
      const release = () => this.#releaseSlot();
      ended.then(release, release);
      return { outcome, record: res.record, started: true };
    }
    return { outcome, record: res.record, started: false };
  }

  /**
   * The takeover commit: pinned to the fence and version read (a write the lost worker made since then, or a
   * racing recoverer, makes it fail), raising the fence, with a status event that says what happened. A resumed
   * task keeps running under a new lease; a failed one ends with none.
   */
  #takeover(
    record: StoredTask,
    fence: number,
    failure: FailureReason | undefined,
    resumes: number,
  ): TaskWrite {
    const task: Task = record.task;
    const contextId = task.contextId ?? '';
    const resumed = failure === undefined;
    const status: TaskStatus = {
      state: resumed ? 'TASK_STATE_WORKING' : 'TASK_STATE_FAILED',
      message: agentMessage(
        {
          parts: [{ text: takeoverText(failure ?? 'resumed', resumes) }],
          metadata: takeoverMetadata(resumed ? 'resumed' : 'failed'),
        },
        task.id,
        contextId,
      ),
      timestamp: isoAt(this.init.clock.now()),
    };
    const ev: TaskStatusUpdateEvent = { taskId: task.id, contextId, status };
    return {
      expectFence: record.fence,
      expectSeq: record.seq,
      nextFence: fence,
      task: applyStatusUpdate(task, ev),
      events: [{ statusUpdate: ev }],
      lease: resumed ? this.init.leases.grant(fence) : null,
      writeId: newWriteId(),
    };
  }
}

/** `n`, checked to be a whole number of at least `min`. @throws RangeError */
function wholeNumber(name: string, n: number, min: number): number {
  if (!Number.isSafeInteger(n) || n < min) throw new RangeError(`${name} must be a whole number >= ${min}`);
  return n;
}
