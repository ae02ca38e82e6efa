/**
 * Runs agents. `start` hands a task turn to its executor in the background and returns at once; the caller
 * follows progress through the store (blocking waits, streams). A turn that returns with the task still active
 * completes it; a turn that throws fails it, the error in a log line and a generic status message naming its
 * id (ADR 0081); one that throws after its task finished leaves the task as it is (ADR 0082). Workers are registered per task so a cancel in this process stops
 * its worker at once; a worker in another process learns it from its next fenced write.
 *
 * The task of an admitted send never stays WORKING in silence (ADR 0029): writes the store fails are retried;
 * if one is lost anyway, the task is ended FAILED (retried for longer); if even that cannot be stored, an
 * error line says the task is left unfinished and why.
 *
 * Every running turn holds a lease on its task, which the runner's `LeaseKeeper` renews while the turn outlives
 * a third of it (ADR 0037); a turn started by recovery runs here like any other, with `isResumed` set.
 */
import type { Message } from '../../protocol/model.js';
import type { TaskState } from '../../protocol/task-state.js';
import type { Clock } from '../../store/clock.js';
import type { Scope } from '../../store/scope.js';
import type { StoredTask } from '../../store/records.js';
import type { TaskStore } from '../../store/task-store.js';
import { StaleWriterError, type AgentExecutor } from '../agent-executor.js';
import { errorFields, logSafely } from '../observability/error-log.js';
import type { ServerLogger } from '../observability/logger.js';
import { armChildLimits, settleChildren } from '../delegation/index.js';
import { cancelledAncestorOf } from '../delegation/cancelled-subtrees.js';
import { childPosition, type DelegationSettings } from '../delegation/delegation-chain.js';
import type { DelegationHost } from '../delegation/delegate.js';
import { errorNameOf, reportAgentFailure, type AgentErrorMessage } from './agent-failure.js';
import { DEFAULT_MAX_STEP_RESULT_BYTES } from './durable-step.js';
import { LeaseKeeper } from './lease-keeper.js';
import { TaskWorker } from './task-worker.js';
import type { Telemetry, TraceCarrier } from '../../telemetry/telemetry.js';
import { live } from '../../telemetry/telemetry.js';
import { ATTR, SPAN } from '../../telemetry/attributes.js';
import { METRIC } from '../observability/metric-names.js';
import {
  countSafely,
  histogramsOf,
  secondsSince,
  type HistogramSink,
  type ServerMetrics,
} from '../observability/metrics.js';
import { DEFAULT_LEASE_MS } from './turn-lease.js';
import { DEFAULT_WRITE_RETRY, StoreWriteError, type WriteRetryPolicy } from './write-retry.js';

/** The status message of a task whose output could not be stored. */
const LOST_WRITE_MESSAGE =
  'The task failed because its progress could not be saved: the task store kept failing. ' +
  'Its output may be incomplete; send the request again to run it anew.';

/** One turn to run. */
export interface TurnInit {
  readonly scope: Scope;
  readonly record: StoredTask;
  readonly message: Message;
  readonly isContinuation: boolean;
  readonly requestedExtensions: readonly string[];
  readonly principal: string | undefined;
  /** The turn is run again because its worker was lost (ADR 0037). */
  readonly isResumed?: boolean;
  /** The turn was started by an out-of-band resume of an AUTH_REQUIRED task (ADR 0054). */
  readonly resumedOutOfBand?: boolean;
}

/** How the runner's turns hold their leases and record their steps. */
export interface RunnerSettings {
  /** Lease length; renewals come every third of it (ADR 0037). */
  readonly leaseMs: number;
  /** The largest step result, in bytes of JSON (ADR 0038). */
  readonly maxStepResultBytes: number;
  /** Told after each write a turn commits (push delivery's wake-up, ADR 0045); must be cheap and not throw. */
  readonly onCommitted?: (scope: Scope, taskId: string) => void;
  /** The delegation depth limit and default budget the turns' `delegate` calls obey (ADR 0061). */
  readonly delegation?: DelegationSettings;
  /**
   * Told when a turn's delegation was refused because a task above the turn's own was cancelled (ADR 0062):
   * resolves once the tasks below it here, this turn's included, are cancelled.
   */
  readonly onAncestorCancelled?: (token: string) => Promise<void>;
  /** The status message of a task whose agent threw (ADR 0081). */
  readonly agentErrorMessage: AgentErrorMessage;
  /** A span per turn, step and commit (ADR 0092); none: no span. */
  readonly telemetry?: Telemetry;
  /** Turns, their duration, and their commits' latency and size (ADR 0094); none: nothing counted. */
  readonly metrics?: ServerMetrics;
  /** The trace context of the send that created a task, when known (ADR 0093): a turn links to it. */
  readonly traceOf?: (scope: Scope, taskId: string) => Promise<TraceCarrier | undefined>;
}

const DEFAULT_SETTINGS: RunnerSettings = {
  leaseMs: DEFAULT_LEASE_MS,
  maxStepResultBytes: DEFAULT_MAX_STEP_RESULT_BYTES,
  agentErrorMessage: 'generic',
};

/** Starts and tracks workers. */
export class Runner {
  readonly #workers = new Map<string, TaskWorker>();
  readonly #running = new Set<Promise<void>>();
  readonly #settings: RunnerSettings;
  readonly #histograms: HistogramSink | undefined;
  /** Renews the leases of the turns running here. */
  readonly leases: LeaseKeeper;

  constructor(
    private readonly store: TaskStore,
    private readonly executor: AgentExecutor,
    private readonly logger: ServerLogger,
    private readonly clock: Clock,
    private readonly retry: WriteRetryPolicy = DEFAULT_WRITE_RETRY,
    settings: Partial<RunnerSettings> = {},
  ) {
    this.#settings = { ...DEFAULT_SETTINGS, ...settings };
    this.#histograms = histogramsOf(this.#settings.metrics);
    this.leases = new LeaseKeeper(this.#settings.leaseMs, () => this.#workers.values(), logger);
  }

  #delegationHost(settings: DelegationSettings): DelegationHost {
    const cancel = this.#settings.onAncestorCancelled;
    const telemetry = this.#settings.telemetry;
    return {
      settings,
      ...(cancel !== undefined ? { onAncestorCancelled: cancel } : {}),
      ...(telemetry !== undefined ? { traceHeaders: () => traceHeadersOf(telemetry) } : {}),
    };
  }

  /** Number of turns running in this process. */
  get activeCount(): number {
    return this.#running.size;
  }

  /** Starts a turn in the background; the promise settles when the turn has ended (recovery counts its turns). */
  start(turn: TurnInit): Promise<void> {
    const worker = new TaskWorker({
      store: this.store,
      clock: this.clock,
      logger: this.logger,
      retry: this.retry,
      leaseMs: this.#settings.leaseMs,
      maxStepResultBytes: this.#settings.maxStepResultBytes,
      ...(this.#settings.onCommitted ? { onCommitted: this.#settings.onCommitted } : {}),
      ...(this.#settings.delegation ? { delegation: this.#delegationHost(this.#settings.delegation) } : {}),
      telemetry: this.#settings.telemetry,
      histograms: this.#histograms,
      ...turn,
    });
    this.leases.ensureStarted();
    const id = workerId(turn.scope, turn.record.task.id);
    this.#workers.get(id)?.abort('superseded');
    this.#workers.set(id, worker);
    const telemetry = live(this.#settings.telemetry);
    const run = telemetry === undefined ? this.#run(worker) : this.#traced(telemetry, worker, turn);
    const metrics = this.#settings.metrics;
    const started = this.#histograms === undefined ? 0 : performance.now();
    const done = run.finally(() => {
      if (metrics !== undefined) this.#countTurn(metrics, worker, started);
      if (this.#workers.get(id) === worker) this.#workers.delete(id);
      this.#running.delete(done);
    });
    this.#running.add(done);
    return done;
  }

  /** Counts an ended turn by the state it left its task in (ADR 0094). */
  #countTurn(metrics: ServerMetrics, worker: TaskWorker, started: number): void {
    const r = worker.current;
    const attributes = {
      [ATTR.taskState]: r.kind === 'message' ? 'TASK_STATE_COMPLETED' : r.task.status.state,
    };
    countSafely(metrics, METRIC.turns.name, attributes);
    this.#histograms?.(METRIC.turnDuration.name, secondsSince(started), attributes);
  }

  /**
   * The workers running here, not stopped, whose task is `token`'s or below it in a delegation tree (the token
   * is among their ancestors, ADR 0062).
   */
  workersBelow(token: string): TaskWorker[] {
    const below: TaskWorker[] = [];
    for (const w of this.#workers.values()) if (!w.aborted && ancestryOf(w).includes(token)) below.push(w);
    return below;
  }

  /** Stops this process's worker of a task, if any (after a cancel committed). */
  stop(scope: Scope, taskId: string): void {
    this.#workers.get(workerId(scope, taskId))?.abort('cancelled');
  }

  /**
   * This process's worker of the task's turn under `fence`, if it is still running: its lease may have lapsed
   * (a long pause), but the worker is alive, so recovery renews it rather than take the task over.
   */
  liveWorker(scope: Scope, taskId: string, fence: number): TaskWorker | undefined {
    const worker = this.#workers.get(workerId(scope, taskId));
    return worker !== undefined && !worker.aborted && worker.fence === fence ? worker : undefined;
  }

  /** Waits for every running turn (graceful shutdown). Leases are renewed until they end. */
  async drain(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }

  /**
   * Gives up every turn still running (a shutdown whose grace ran out, ADR 0088): stops renewing leases, aborts
   * each worker (its agent's signal fires and its writes are refused here; the store fences any in flight once
   * another replica takes the task over) and forgets it, so `drain` no longer waits for an agent that may never
   * return. Returns the turns given up, for their leases to be shortened.
   */
  abandon(): { scope: Scope; taskId: string; fence: number }[] {
    this.leases.close();
    const given = [...this.#workers.values()].map((w) => ({
      scope: w.scope,
      taskId: w.taskId,
      fence: w.fence,
    }));
    for (const w of this.#workers.values()) w.abort('shutdown');
    this.#workers.clear();
    this.#running.clear();
    return given;
  }

  /** Stops renewing leases (after `drain`). */
  close(): void {
    this.leases.close();
  }

  /**
   * `#run` in the turn's span (ADR 0092): the child of the span active when the turn starts (the SERVER span of
   * the send that admitted it), linked to the span of the send that created the task when that is another one
   * (a continuation, a recovered turn). Active for the whole turn: the agent's steps, commits and delegations
   * are its children, and outlive the send's span when the send answered first.
   */
  async #traced(telemetry: Telemetry, worker: TaskWorker, turn: TurnInit): Promise<void> {
    const span = telemetry.startSpan(SPAN.turn, {
      attributes: {
        [ATTR.taskId]: worker.taskId,
        [ATTR.contextId]: worker.contextId === '' ? undefined : worker.contextId,
        [ATTR.messageId]: worker.message.messageId,
        [ATTR.fence]: worker.fence,
        [ATTR.resumed]: turn.isResumed === true,
      },
    });
    // The link is added once found (a store read when another process created the task): the turn does not wait.
    // A turn nobody records looks nothing up.
    if (span.recording) {
      // The span active here is the admitting send's (startSpan does not activate the turn's).
      const parent = telemetry.activeSpan()?.carrier().traceparent;
      void this.#settings.traceOf?.(turn.scope, worker.taskId).then((first) => {
        if (first !== undefined && first.traceparent !== parent) span.link(first);
      });
    }
    try {
      await span.run(() => this.#run(worker));
    } finally {
      const r = worker.current;
      span.setAttribute(ATTR.taskState, r.kind === 'message' ? 'TASK_STATE_COMPLETED' : r.task.status.state);
      span.end();
    }
  }

  async #run(worker: TaskWorker): Promise<void> {
    let failure: unknown;
    let disarm = noLimits;
    try {
      // A child of a delegation carries its parent's budget and lease (ADR 0039): armed for the whole turn.
      disarm = armChildLimits({
        message: worker.message,
        tenant: worker.tenant,
        taskId: worker.taskId,
        // Read from the store: the parent's polls may renew the lease through another replica (ADR 0044).
        lastRenewal: () => this.store.lastParentRenewal(worker.scope, worker.taskId),
        clock: this.clock,
        logger: this.logger,
        onBudgetExhausted: (text) => this.#endForLimit(worker, 'TASK_STATE_FAILED', text),
        onLeaseLapsed: () =>
          this.#endForLimit(
            worker,
            'TASK_STATE_CANCELED',
            'Cancelled: the parent stopped renewing the delegation lease',
          ),
      });
      await this.executor.execute(worker);
    } catch (err) {
      failure = err;
    } finally {
      disarm();
      worker.endTurn();
    }
    // A turn that returned with its task still running completes it, in the same commit as the writes it left
    // to be stored (ADR 0048): a quick turn is stored once. How that write went is judged below, after them.
    const completion =
      failure === undefined && worker.isActive && !worker.aborted && !worker.lostWrite
        ? worker.complete()
        : undefined;
    completion?.catch(() => undefined);
    await worker.drain();
    // A turn that ends without its work done (it threw, lost a write, or its task is now FAILED, REJECTED or
    // CANCELED however that came about) cancels the children it left unsettled: nobody will read them (ADR 0062).
    if (failure !== undefined || worker.lostWrite || abandonsChildren(worker.current.task.status.state))
      await settleChildren(worker).catch(() => undefined);
    // Refused because a task above this one was cancelled: this one goes with its subtree, CANCELED, not FAILED.
    const cancelledAbove = failure === undefined ? undefined : cancelledAncestorOf(failure);
    if (cancelledAbove !== undefined && ancestryOf(worker).includes(cancelledAbove))
      await this.#settings.onAncestorCancelled?.(cancelledAbove).catch((err: unknown) =>
        logSafely(this.logger, 'warn', 'could not cancel a task below a cancelled one', {
          taskId: worker.taskId,
          ...errorFields(err, worker.idempotencyKey),
        }),
      );
    if (worker.aborted) return;
    // A lost write outranks whatever the agent did next: the task's output is incomplete.
    if (worker.lostWrite) return this.#failAfterLostWrite(worker, worker.lostWrite);
    if (completion === undefined && !worker.isActive) {
      // Thrown after the task finished (a write after `complete`, or anything else): the task stays as it
      // finished, and the error is not lost (ADR 0082).
      if (failure !== undefined) this.#logLateFailure(worker, failure);
      return;
    }
    try {
      if (completion !== undefined) await completion;
      else if (failure === undefined) await worker.complete();
      else {
        const turn = { taskId: worker.taskId, key: worker.idempotencyKey };
        await worker.fail(reportAgentFailure(failure, turn, this.#settings.agentErrorMessage, this.logger));
      }
    } catch (err) {
      if (err instanceof StaleWriterError) return;
      if (err instanceof StoreWriteError) return this.#failAfterLostWrite(worker, err);
      logSafely(this.logger, 'error', 'could not settle a task after its turn', {
        taskId: worker.taskId,
        ...errorFields(err, worker.idempotencyKey),
      });
    }
  }

  /** Logs an error the agent threw after its task had finished. */
  #logLateFailure(worker: TaskWorker, failure: unknown): void {
    const r = worker.current;
    const state = r.kind === 'message' ? 'answered with a message' : r.task.status.state;
    logSafely(this.logger, 'warn', 'agent turn threw after its task finished; the task is left as it is', {
      taskId: worker.taskId,
      state,
      errorName: errorNameOf(failure),
      ...errorFields(failure, worker.idempotencyKey),
    });
  }

  /** Ends the turn's task for a delegation limit (budget or parent lease), then stops the agent. */
  async #endForLimit(worker: TaskWorker, state: 'TASK_STATE_FAILED' | 'TASK_STATE_CANCELED', text: string) {
    if (worker.aborted || !worker.isActive) return;
    try {
      await worker.status(state, text);
    } finally {
      worker.abort('delegation limit');
    }
  }

  /** Ends the task FAILED after a lost write; says so in an error line if even that cannot be stored. */
  async #failAfterLostWrite(worker: TaskWorker, lost: StoreWriteError): Promise<void> {
    logSafely(this.logger, 'warn', 'a write of the task was lost; ending the task FAILED', {
      taskId: worker.taskId,
      ...errorFields(lost, worker.idempotencyKey),
    });
    try {
      await worker.failAfterLostWrite(LOST_WRITE_MESSAGE);
    } catch (err) {
      const state = worker.current.task.status.state.replace('TASK_STATE_', '');
      logSafely(
        this.logger,
        'error',
        `task left ${state}: the store failed every write, including the FAILED status, for ${
          (this.retry.writeBudgetMs + this.retry.failBudgetMs) / 1000
        } s`,
        { taskId: worker.taskId, state, ...errorFields(err, worker.idempotencyKey) },
      );
    }
  }
}

const noLimits = (): void => undefined;

const ancestries = new WeakMap<TaskWorker, readonly string[]>();

/** The tokens of a worker's task and of every task above it (ADR 0062); none for a malformed entry. */
function ancestryOf(worker: TaskWorker): readonly string[] {
  let a = ancestries.get(worker);
  if (a === undefined) {
    try {
      a = childPosition(worker.taskId, worker.message).ancestors;
    } catch {
      a = [];
    }
    ancestries.set(worker, a);
  }
  return a;
}

/** Whether a turn that left its task in `state` gave up on its work, and so on its children. */
function abandonsChildren(state: TaskState): boolean {
  return state === 'TASK_STATE_FAILED' || state === 'TASK_STATE_REJECTED' || state === 'TASK_STATE_CANCELED';
}

function workerId(scope: Scope, taskId: string): string {
  return scope.tenant + '\u0000' + scope.owner + '\u0000' + taskId;
}

/** The active trace context as headers (none while the telemetry is quiet). */
function traceHeadersOf(telemetry: Telemetry): Record<string, string> {
  const headers: Record<string, string> = {};
  live(telemetry)?.inject(headers);
  return headers;
}
