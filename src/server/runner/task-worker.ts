/**
 * One worker running one turn of a task under a fencing token. It implements `AgentContext`: every report is a
 * step over the task (`turn-write.ts`), folded in and committed as a compare-and-set on the fence, in the order
 * the agent made them, the writes of one burst together (`write-behind.ts`, ADR 0048). A refused write means the
 * task moved on (cancel, takeover): the worker aborts its signal and the agent's call throws `StaleWriterError`
 * (SEMANTICS §4). A write the store fails is retried (`write-retry.ts`); one that cannot be stored at all is
 * "lost": the agent's call throws `StoreWriteError`, its signal aborts, every later write is refused, and the
 * runner ends the task FAILED (ADR 0029), so a task never finishes with part of its output missing.
 *
 * The worker holds the task's lease (ADR 0037): granted with the write that started the turn, renewed by the
 * runner's `LeaseKeeper` while the turn runs, cleared by the turn's final write. A renewal the store refuses
 * stops the worker like a refused write. Durable steps (`step`, ADR 0038) run through `DurableSteps`.
 */
import { IDEMPOTENCY_METADATA_KEY } from '../../idempotency/index.js';
import { bindDelegationHost, delegate, type DelegateOptions } from '../delegation/delegate.js';
import type { DelegationHandle } from '../../delegation/index.js';
import type { PeerSource } from '../delegation/peer-source.js';
import { newUuid } from '../../protocol/uuid.js';
import type { Artifact, JsonObject, Message, StreamResponse, Task } from '../../protocol/model.js';
import type { TaskState } from '../../protocol/task-state.js';
import { toWireArtifact } from '../../protocol/wire-write.js';
import type { Clock } from '../../store/clock.js';
import type { Scope } from '../../store/scope.js';
import type { StoredTask } from '../../store/records.js';
import type { CommitResult, TaskWrite } from '../../store/task-store.js';
import { errorFields, logSafely } from '../observability/error-log.js';
import {
  StaleWriterError,
  TaskFinishedError,
  type AgentContext,
  type ArtifactChunkOptions,
  type ArtifactInit,
  type FinishedTaskWrite,
  type StatusMessageInit,
} from '../agent-executor.js';
import { deepFreeze } from './deep-freeze.js';
import { DurableSteps, sideEffectKeyOf, type StepHost } from './durable-step.js';
import type { StepAttempt, StepOptions } from '../step-options.js';
import { agentMessage, textOf } from './message-init.js';
import {
  artifactStep,
  failedStatusWrite,
  foldWrites,
  isRunning,
  replyStep,
  statusStep,
  writeKind,
  type WriteStep,
} from './turn-write.js';
import { WriteBehind } from './write-behind.js';
import { newWriteId } from './write-id.js';
import type { Telemetry } from '../../telemetry/telemetry.js';
import { live } from '../../telemetry/telemetry.js';
import type { HistogramSink } from '../observability/metrics.js';
import { instrumentedCommit } from './commit-instruments.js';
import { tracedDelegation } from './traced-delegation.js';
import {
  commitPinned,
  retryAfterThrow,
  StoreWriteError,
  type RetriedWrite,
  type WriteRetryPolicy,
  type WriteTarget,
} from './write-retry.js';
import type { FailedWriteOutcome, RenewalOutcome, TaskWorkerInit } from './task-worker-init.js';

export type { FailedWriteOutcome, RenewalOutcome, TaskWorkerInit } from './task-worker-init.js';

/** The AgentContext of one turn. */
export class TaskWorker implements AgentContext {
  readonly taskId: string;
  readonly contextId: string;
  readonly message: Message;
  readonly userText: string;
  readonly task: Task;
  readonly isContinuation: boolean;
  readonly isResumed: boolean;
  readonly resumedOutOfBand: boolean;
  readonly tenant: string;
  readonly principal: string | undefined;
  readonly requestedExtensions: readonly string[];
  /** Created on first use: most agents never look at their signal, and a controller is not free. */
  #controller: AbortController | undefined;
  #aborted = false;
  /** Why the signal aborts: fenced out or cancelled (StaleWriterError), or a write lost (StoreWriteError). */
  #stopReason: Error | undefined;
  /** The first write the store could not take; set, it refuses every later write. */
  #lost: StoreWriteError | undefined;
  readonly #clock: Clock;
  readonly #target: WriteTarget;
  readonly #policy: WriteRetryPolicy;
  #current: StoredTask;
  /** Writes accepted and not yet stored, and when to store them (ADR 0048). */
  readonly #writes: WriteBehind<WriteStep>;
  #replied = false;
  /** The agent's `execute` has settled: a refused write now has nobody in the turn to catch it. */
  #turnOver = false;
  /** The owner name of the lease the turn started with (undefined when the store gave none). */
  readonly #leaseOwner: string | undefined;
  readonly #leaseMs: number;
  readonly #maxStepResultBytes: number;
  readonly #onCommitted: ((scope: Scope, taskId: string) => void) | undefined;
  readonly #telemetry: Telemetry | undefined;
  readonly #histograms: HistogramSink | undefined;
  #steps: DurableSteps | undefined;
  /** Lease ticks this worker has seen (the keeper renews from the second on; see `LeaseKeeper`). */
  leaseTicks = 0;
  /** A renewal is in flight: the keeper does not start another. */
  renewing = false;

  constructor(init: TaskWorkerInit) {
    this.#clock = init.clock;
    this.#policy = init.retry;
    this.#target = {
      store: init.store,
      scope: init.scope,
      taskId: init.record.task.id,
      fence: init.record.fence,
      retry: init.retry,
      logger: init.logger,
      stopped: () => this.#aborted,
      key: () => {
        const key = init.message.metadata?.[IDEMPOTENCY_METADATA_KEY];
        return typeof key === 'string' ? key : undefined;
      },
    };
    this.#current = init.record;
    this.#writes = new WriteBehind<WriteStep>(init.clock, init.leaseMs, (steps) => this.#commitSome(steps));
    // The agent gets the stored objects, frozen: it must not change the history or a retry's digest (ADR 0030).
    this.task = deepFreeze(init.record.task);
    this.taskId = init.record.task.id;
    this.contextId = init.record.task.contextId ?? '';
    this.message = deepFreeze(init.message);
    this.userText = textOf(init.message);
    this.isContinuation = init.isContinuation;
    this.isResumed = init.isResumed === true;
    this.resumedOutOfBand = init.resumedOutOfBand === true;
    this.#leaseOwner = init.record.lease?.owner;
    this.#leaseMs = init.leaseMs;
    this.#maxStepResultBytes = init.maxStepResultBytes;
    this.#onCommitted = init.onCommitted;
    this.#telemetry = init.telemetry;
    this.#histograms = init.histograms;
    this.tenant = init.scope.tenant;
    this.principal = init.principal;
    this.requestedExtensions = init.requestedExtensions;
    if (init.delegation) bindDelegationHost(this, init.delegation);
  }

  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    if (this.#stopReason && !this.#controller.signal.aborted) this.#controller.abort(this.#stopReason);
    return this.#controller.signal;
  }

  /** Whether the worker was stopped (cancelled or fenced out). */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** The key of this turn's message, if any: for redacting it from log lines, never for writing it. */
  get idempotencyKey(): string | undefined {
    return this.#target.key();
  }

  /** The write the store could not take, if one was given up: the task must then end FAILED. */
  get lostWrite(): StoreWriteError | undefined {
    return this.#lost;
  }

  /** The latest record this worker wrote or saw. */
  get current(): StoredTask {
    return this.#current;
  }

  /** The scope of the task. */
  get scope(): Scope {
    return this.#target.scope;
  }

  /** The fencing token this worker writes under. */
  get fence(): number {
    return this.#target.fence;
  }

  /** Stops the worker (cancel or takeover seen elsewhere). */
  abort(reason: string): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#stop(new StaleWriterError(this.taskId));
    void reason;
  }

  /** Aborts the agent's signal (once, with the first reason). */
  #stop(reason: Error): void {
    this.#stopReason ??= reason;
    if (this.#controller && !this.#controller.signal.aborted) this.#controller.abort(this.#stopReason);
  }

  status(state: TaskState, message?: StatusMessageInit, metadata?: JsonObject): Promise<void> {
    return (
      this.#refusal('status', state) ??
      this.#writes.accept(statusStep(this, this.#clock, state, message, metadata), !isRunning(state))
    );
  }

  working(message?: StatusMessageInit): Promise<void> {
    return this.status('TASK_STATE_WORKING', message);
  }
  complete(message?: StatusMessageInit): Promise<void> {
    return this.status('TASK_STATE_COMPLETED', message);
  }
  fail(message?: StatusMessageInit): Promise<void> {
    return this.status('TASK_STATE_FAILED', message);
  }
  reject(message?: StatusMessageInit): Promise<void> {
    return this.status('TASK_STATE_REJECTED', message);
  }
  requireInput(message: StatusMessageInit): Promise<void> {
    return this.status('TASK_STATE_INPUT_REQUIRED', message);
  }
  requireAuth(message: StatusMessageInit): Promise<void> {
    return this.status('TASK_STATE_AUTH_REQUIRED', message);
  }

  artifact(init: ArtifactInit, options: ArtifactChunkOptions = {}): Promise<Artifact> {
    const refused = this.#refusal('artifact');
    if (refused) return refused;
    const artifact: Artifact = toWireArtifact({ ...init, artifactId: init.artifactId ?? newUuid() });
    return this.#writes.accept(artifactStep(this, artifact, options), false).then(() => artifact);
  }

  reply(init: StatusMessageInit): Promise<void> {
    const refused = this.#refusal('reply');
    if (refused) return refused;
    if (this.isContinuation || this.#replied || this.#writes.accepted > 0 || this.#current.seq !== 0) {
      return Promise.reject(new Error('reply() must be the first and only output of a first turn'));
    }
    this.#replied = true;
    return this.#writes.accept(replyStep(this.#clock, agentMessage(init, undefined, this.contextId)), true);
  }

  /**
   * Told by the runner once the agent's `execute` settled. A write refused from then on (a timer, a promise the
   * agent did not await) has nobody in the turn to catch it: it is logged when it is made (ADR 0082).
   */
  endTurn(): void {
    this.#turnOver = true;
  }

  /**
   * Whether the task is still active (SUBMITTED or WORKING) in this worker's view: as stored, and with no write
   * that ends the turn waiting to be.
   */
  get isActive(): boolean {
    return !this.#writes.pendingEnd && this.#durablyActive();
  }

  /** Whether the task is active as last stored (or seen) by this worker. */
  #durablyActive(): boolean {
    const r = this.#current;
    if (r.kind === 'message') return false;
    const s = r.task.status.state;
    return s === 'TASK_STATE_SUBMITTED' || s === 'TASK_STATE_WORKING';
  }

  /**
   * Why the agent's next write is refused, as the rejected promise to hand it; undefined when it is accepted,
   * to be stored when `WriteBehind` says (ADR 0048). If storing an accepted write later fails, the worker stops
   * as for any refused or lost write, and the agent's next call throws.
   */
  #refusal(write: FinishedTaskWrite, state?: TaskState): Promise<never> | undefined {
    // An earlier write was refused or is missing from the task: nothing after it may land.
    if (this.#aborted) return Promise.reject(new StaleWriterError(this.taskId));
    if (this.#lost) return Promise.reject(this.#lost);
    if (!this.#writes.pendingEnd && this.#durablyActive()) return undefined;
    const err = new TaskFinishedError(this.taskId, write, state);
    const refused = Promise.reject(err);
    if (this.#turnOver) {
      // Said here, with the stack of the late call, rather than left to end the process as an unhandled
      // rejection: nothing was written, and the finished task is as it should be.
      logSafely(
        this.#target.logger,
        'warn',
        'a write came after the turn ended; refused, its task is finished',
        {
          taskId: this.taskId,
          write,
          errorName: err.name,
          ...errorFields(err, this.#target.key()),
        },
      );
      refused.catch(() => undefined);
    }
    return refused;
  }

  /** Stores one slice of accepted writes, timed and traced where there is a sink or telemetry. */
  #commitSome(steps: WriteStep[]): Promise<void> {
    const instruments = {
      histograms: this.#histograms,
      telemetry: this.#telemetry,
      taskId: this.taskId,
      fence: this.fence,
    };
    return instrumentedCommit(instruments, steps.length, () => this.#commitSlice(steps));
  }

  /** Stores one slice of accepted writes as one compare-and-set with all their events (see `WriteBehind`). */
  async #commitSlice(steps: WriteStep[]): Promise<void> {
    try {
      if (this.#aborted) throw new StaleWriterError(this.taskId);
      if (this.#lost) throw this.#lost;
      const cur = this.#current;
      const t = this.#target;
      // Built from the stored record at each attempt, so its timestamps say when it was stored; one write id for
      // every attempt, so an attempt that landed though its answer was lost is recognised (ADR 0052).
      const writeId = newWriteId();
      const build = (): TaskWrite => foldWrites(cur.task, steps, t.fence, writeId);
      const write = build();
      let res: CommitResult | RetriedWrite;
      try {
        res = await t.store.commit(t.scope, this.taskId, write);
      } catch (err) {
        res = await this.#retry(cur, build, err, write.events);
      }
      if (!res.ok) {
        if (res.current) this.#current = res.current;
        this.abort('fenced out');
        throw new StaleWriterError(this.taskId);
      }
      this.#current = res.record;
      this.#onCommitted?.(t.scope, this.taskId);
    } catch (err) {
      if (!(err instanceof StaleWriterError) && !(err instanceof StoreWriteError)) {
        // Not the store's refusal nor its outage: still, these writes are not in the task, so none after may be.
        logSafely(this.#target.logger, 'error', 'a write of the task could not be built or stored', {
          taskId: this.taskId,
          ...errorFields(err, this.#target.key()),
        });
        this.#lost ??= new StoreWriteError(this.taskId, 1, err);
        this.#stop(this.#lost);
      }
      throw err;
    }
  }

  /** A write whose first attempt threw: retried, and recorded as lost if the store never takes it. */
  async #retry(
    cur: StoredTask,
    build: () => TaskWrite,
    err: unknown,
    events: readonly StreamResponse[],
  ): Promise<RetriedWrite> {
    try {
      return await retryAfterThrow(
        this.#target,
        cur,
        build,
        this.#policy.writeBudgetMs,
        events.map(writeKind).join(', '),
        err,
      );
    } catch (lost) {
      if (lost instanceof StoreWriteError) {
        this.#lost ??= lost;
        this.#stop(lost);
      }
      throw lost;
    }
  }

  /**
   * The last resort after a lost write: ends the task FAILED with `text` as the status message, retrying for
   * `failBudgetMs`. Pinned to the version it was built on, so it never overwrites a write of ours whose
   * acknowledgement was lost; if such a write turns out to have finished the task, that stands.
   * Call only after `drain()`.
   * @throws StoreWriteError when the store still fails after the budget
   */
  async failAfterLostWrite(text: string): Promise<FailedWriteOutcome> {
    for (;;) {
      if (this.#aborted) return 'stale';
      const cur = this.#current;
      if (!this.isActive) return 'settled';
      const writeId = newWriteId();
      const failed = { taskId: this.taskId, contextId: this.contextId, fence: this.#target.fence, text };
      const build = (): TaskWrite => failedStatusWrite(cur.task, failed, this.#clock.now(), writeId);
      const res = await commitPinned(this.#target, cur, build, this.#policy.failBudgetMs, 'status FAILED');
      if (!res.ok) {
        if (res.current) this.#current = res.current;
        this.abort('fenced out');
        return 'stale';
      }
      this.#current = res.record;
      this.#onCommitted?.(this.#target.scope, this.taskId);
      // Written; or an earlier write of ours had landed after all: look again at what the task is now.
      if (!res.landedEarlier) return 'settled';
    }
  }

  async flush(): Promise<void> {
    await this.drain();
    if (this.#aborted) throw new StaleWriterError(this.taskId);
    if (this.#lost) throw this.#lost;
  }

  /** Stores every write accepted so far, and waits until all of them have settled (never rejects). */
  drain(): Promise<unknown> {
    return this.#writes.drain();
  }

  step<T>(
    name: string,
    fn: (sideEffectKey: string, attempt: StepAttempt) => T | Promise<T>,
    options?: StepOptions<T>,
  ): Promise<T> {
    this.#steps ??= new DurableSteps(this.#stepHost());
    return this.#steps.run(name, fn, options);
  }

  sideEffectKey(name: string): string {
    return sideEffectKeyOf(this.taskId, name);
  }

  delegate(
    peer: PeerSource,
    message: string | Message,
    options?: DelegateOptions,
  ): Promise<DelegationHandle> {
    const telemetry = live(this.#telemetry);
    if (telemetry === undefined) return delegate(this, peer, message, options);
    return tracedDelegation(telemetry, options?.name, () => delegate(this, peer, message, options));
  }

  /**
   * Extends the lease by `leaseMs` from the store's now. A refusal while the turn is still running in this
   * worker's view means the task moved on without it: the worker stops, like after a refused write. A refusal
   * because the turn's own final write just cleared the lease is not a loss: in-flight writes are awaited
   * before deciding.
   */
  async renewLease(): Promise<RenewalOutcome> {
    const owner = this.#leaseOwner;
    if (owner === undefined || this.#aborted || !this.isActive) return 'idle';
    const t = this.#target;
    if (await t.store.renewLease(t.scope, this.taskId, t.fence, owner, this.#leaseMs)) return 'renewed';
    await this.drain();
    if (this.#aborted) return 'lost';
    if (!this.isActive) return 'idle';
    this.abort('lease lost');
    return 'lost';
  }

  #stepHost(): StepHost {
    const t = this.#target;
    return {
      store: t.store,
      scope: t.scope,
      taskId: this.taskId,
      fence: t.fence,
      maxResultBytes: this.#maxStepResultBytes,
      retry: this.#policy,
      logger: t.logger,
      telemetry: this.#telemetry,
      key: () => t.key(),
      assertCanWrite: () => {
        if (this.#aborted) throw new StaleWriterError(this.taskId);
        if (this.#lost) throw this.#lost;
        if (!this.isActive) throw new TaskFinishedError(this.taskId, 'step');
      },
      confirmHold: async () => {
        // The writes the agent made before the step are stored first: a refusal stops the worker here.
        await this.flush();
        let outcome: RenewalOutcome;
        try {
          outcome = await this.renewLease();
        } catch (err) {
          logSafely(t.logger, 'warn', 'could not confirm the task lease before a step; running it anyway', {
            taskId: this.taskId,
            ...errorFields(err, t.key()),
          });
          return;
        }
        if (outcome === 'lost') throw new StaleWriterError(this.taskId);
      },
      fencedOut: () => {
        this.abort('fenced out');
        return new StaleWriterError(this.taskId);
      },
      leaseMs: this.#leaseMs,
      renewLease: () => this.renewLease(),
      signal: () => this.signal,
      failTask: async (text) => {
        await this.fail(text);
        await this.flush();
      },
    };
  }
}
