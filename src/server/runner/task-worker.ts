/**
 * One worker running one turn of a task under a fencing token. It implements `AgentContext`: every report is
 * folded into the task and committed as a compare-and-set on the fence, in the order the agent made them (the
 * worker serialises its own writes). A refused write means the task moved on (cancel, takeover): the worker
 * aborts its signal and the agent's call throws `StaleWriterError` (SEMANTICS §4).
 */
import { isoAt } from '../../protocol/iso-time.js';
import { newUuid } from '../../protocol/uuid.js';
import type {
  Artifact,
  JsonObject,
  Message,
  StreamResponse,
  Task,
  TaskArtifactUpdateEvent,
  TaskStatus,
  TaskStatusUpdateEvent,
} from '../../protocol/model.js';
import { isTerminalState, type TaskState } from '../../protocol/task-state.js';
import { toWireArtifact } from '../../protocol/wire-write.js';
import type { Clock } from '../../store/clock.js';
import type { Scope } from '../../store/scope.js';
import type { StoredTask } from '../../store/records.js';
import type { TaskStore, TaskWrite } from '../../store/task-store.js';
import {
  StaleWriterError,
  type AgentContext,
  type ArtifactChunkOptions,
  type ArtifactInit,
  type StatusMessageInit,
} from '../agent-executor.js';
import { applyArtifactUpdate, applyStatusUpdate } from '../task-events.js';
import { agentMessage, textOf } from './message-init.js';

/** What a worker needs to start. */
export interface TaskWorkerInit {
  readonly store: TaskStore;
  readonly clock: Clock;
  readonly scope: Scope;
  readonly record: StoredTask;
  readonly message: Message;
  readonly isContinuation: boolean;
  readonly requestedExtensions: readonly string[];
  readonly principal: string | undefined;
}

/** The AgentContext of one turn. */
export class TaskWorker implements AgentContext {
  readonly taskId: string;
  readonly contextId: string;
  readonly message: Message;
  readonly userText: string;
  readonly task: Task;
  readonly isContinuation: boolean;
  readonly tenant: string;
  readonly principal: string | undefined;
  readonly requestedExtensions: readonly string[];
  /** Created on first use: most agents never look at their signal, and a controller is not free. */
  #controller: AbortController | undefined;
  #aborted = false;
  readonly #store: TaskStore;
  readonly #clock: Clock;
  readonly #scope: Scope;
  readonly #fence: number;
  #current: StoredTask;
  /** Tail of the write chain: writes commit in call order even if the agent does not await them. */
  #chain: Promise<unknown> = Promise.resolve();
  #replied = false;
  #inFlight = 0;
  readonly #settled = (): void => {
    this.#inFlight--;
  };

  constructor(init: TaskWorkerInit) {
    this.#store = init.store;
    this.#clock = init.clock;
    this.#scope = init.scope;
    this.#current = init.record;
    this.#fence = init.record.fence;
    this.task = init.record.task;
    this.taskId = init.record.task.id;
    this.contextId = init.record.task.contextId ?? '';
    this.message = init.message;
    this.userText = textOf(init.message);
    this.isContinuation = init.isContinuation;
    this.tenant = init.scope.tenant;
    this.principal = init.principal;
    this.requestedExtensions = init.requestedExtensions;
  }

  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    if (this.#aborted && !this.#controller.signal.aborted)
      this.#controller.abort(new StaleWriterError(this.taskId));
    return this.#controller.signal;
  }

  /** Whether the worker was stopped (cancelled or fenced out). */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** The latest record this worker wrote or saw. */
  get current(): StoredTask {
    return this.#current;
  }

  /** Stops the worker (cancel or takeover seen elsewhere). */
  abort(reason: string): void {
    if (this.#aborted) return;
    this.#aborted = true;
    if (this.#controller) this.#controller.abort(new StaleWriterError(this.taskId));
    void reason;
  }

  status(state: TaskState, message?: StatusMessageInit, metadata?: JsonObject): Promise<void> {
    return this.#write((task) => {
      // Built without `...(cond ? {…} : {})`, which allocates an object even when it adds nothing.
      const timestamp = isoAt(this.#clock.now());
      const status: TaskStatus =
        message === undefined
          ? { state, timestamp }
          : { state, message: agentMessage(message, this.taskId, this.contextId), timestamp };
      const ev: TaskStatusUpdateEvent = { taskId: this.taskId, contextId: this.contextId, status };
      if (metadata) ev.metadata = metadata;
      return { task: applyStatusUpdate(task, ev), event: { statusUpdate: ev } };
    });
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
    const artifact: Artifact = toWireArtifact({ ...init, artifactId: init.artifactId ?? newUuid() });
    return this.#write((task) => {
      const ev: TaskArtifactUpdateEvent = { taskId: this.taskId, contextId: this.contextId, artifact };
      if (options.append) ev.append = true;
      if (options.lastChunk) ev.lastChunk = true;
      return { task: applyArtifactUpdate(task, ev), event: { artifactUpdate: ev } };
    }).then(() => artifact);
  }

  reply(init: StatusMessageInit): Promise<void> {
    if (this.isContinuation || this.#replied || this.#current.seq !== 0) {
      return Promise.reject(new Error('reply() must be the first and only output of a first turn'));
    }
    this.#replied = true;
    const message = agentMessage(init, undefined, this.contextId);
    // The record also reads as a completed task whose status message is the reply, for a caller that was
    // handed the task id before the agent chose to reply (returnImmediately).
    return this.#write((task) => ({
      task: {
        ...task,
        status: {
          state: 'TASK_STATE_COMPLETED',
          message,
          timestamp: isoAt(this.#clock.now()),
        },
        history: [...(task.history ?? []), message],
      },
      event: { message },
      reply: message,
    }));
  }

  /** Whether the task is still active (SUBMITTED or WORKING) in this worker's view. */
  get isActive(): boolean {
    const r = this.#current;
    if (r.kind === 'message') return false;
    const s = r.task.status.state;
    return s === 'TASK_STATE_SUBMITTED' || s === 'TASK_STATE_WORKING';
  }

  #write(step: (task: Task) => { task: Task; event: StreamResponse; reply?: Message }): Promise<void> {
    const run = async (): Promise<void> => {
      if (this.#aborted) throw new StaleWriterError(this.taskId);
      const cur = this.#current;
      if (cur.kind === 'message' || isTerminalState(cur.task.status.state)) {
        throw new Error(`task ${this.taskId} is already finished; no further output is accepted`);
      }
      const next = step(cur.task);
      const write: TaskWrite = next.reply
        ? { expectFence: this.#fence, task: next.task, events: [next.event], reply: next.reply }
        : { expectFence: this.#fence, task: next.task, events: [next.event] };
      const res = await this.#store.commit(this.#scope, this.taskId, write);
      if (!res.ok) {
        if (res.current) this.#current = res.current;
        this.abort('fenced out');
        throw new StaleWriterError(this.taskId);
      }
      this.#current = res.record;
    };
    // Writes commit in call order. When nothing is in flight the write starts at once (no extra turn of the
    // microtask queue: this is on every send's path).
    const p = this.#inFlight === 0 ? run() : this.#chain.then(run, run);
    this.#inFlight++;
    this.#chain = p.then(this.#settled, this.#settled);
    return p;
  }

  /** Waits until every write the agent started has settled. */
  drain(): Promise<unknown> {
    return this.#chain;
  }
}
