/**
 * CancelTask's write, and the cancel of a delegation subtree it sets off (ADR 0062). A cancel raises the task's
 * fence, so its worker is stopped wherever it runs (docs/semantics.md §4); here it also stops this process's
 * worker at once, wakes push delivery, and, as the task may be the root of a delegation tree, remembers its token
 * and cancels every task this process runs below it, without waiting for the hop-by-hop cascade to get there.
 */
import { isoAt } from '../protocol/iso-time.js';
import { A2AError, ServerBusyError, TaskNotCancelableError, TaskNotFoundError } from '../protocol/errors.js';
import type { Task, TaskStatus } from '../protocol/model.js';
import { isTerminalState } from '../protocol/task-state.js';
import type { Clock } from '../store/clock.js';
import type { StoredTask } from '../store/records.js';
import type { Scope } from '../store/scope.js';
import type { TaskStore } from '../store/task-store.js';
import { ancestorCancelledMessage, CancelledSubtrees } from './delegation/cancelled-subtrees.js';
import { ancestorToken } from './delegation/delegation-chain.js';
import { errorFields, logSafely } from './observability/error-log.js';
import type { ServerLogger } from './observability/logger.js';
import type { Runner } from './runner/runner.js';

/** What cancelling needs of the server. */
export interface TaskCancelDeps {
  readonly store: TaskStore;
  readonly clock: Clock;
  readonly logger: ServerLogger;
  /** Resolved lazily: the runner is built after this. */
  readonly runner: () => Runner;
  /** Told after a cancel committed (push delivery's wake-up). */
  readonly committed: (scope: Scope, taskId: string) => void;
}

/** Cancels tasks, and the delegation subtrees below them that this process runs. */
export class TaskCancel {
  /** Delegation subtrees this process knows were cancelled: the door refuses sends below them. */
  readonly cancelled: CancelledSubtrees;

  constructor(private readonly deps: TaskCancelDeps) {
    this.cancelled = new CancelledSubtrees(() => deps.clock.now());
  }

  /**
   * Cancels task `id` of `scope` (read through `read`, which decides what the caller may see), then every task
   * this process runs below it. `cancelledAncestor`: the token of the cancelled task above it, when that is why
   * (named in its status message, so a parent watching it can tell).
   * @throws TaskNotCancelableError for a task already finished; ServerBusyError when it keeps changing
   */
  async cancel(
    scope: Scope,
    id: string,
    read: () => Promise<StoredTask>,
    cancelledAncestor?: string,
  ): Promise<Task> {
    const { store, clock } = this.deps;
    for (let attempt = 0; attempt < 16; attempt++) {
      const cur = await read();
      const state = cur.task.status.state;
      if (state === 'TASK_STATE_CANCELED') return cur.task; // cancel is idempotent (A2A §3.3.1)
      if (isTerminalState(state)) {
        throw new TaskNotCancelableError({
          message: `Task is ${state}`,
          metadata: { taskId: id, state },
        });
      }
      const status: TaskStatus = { state: 'TASK_STATE_CANCELED', timestamp: isoAt(clock.now()) };
      if (cancelledAncestor !== undefined)
        status.message = ancestorCancelledMessage(id, cur.task.contextId ?? '', cancelledAncestor);
      const task: Task = { ...cur.task, status };
      // Raising the fence stops the worker wherever it runs: its next write is refused (SEMANTICS §4). The
      // turn is over, so its lease goes with it.
      const res = await store.commit(scope, id, {
        expectFence: cur.fence,
        expectSeq: cur.seq,
        nextFence: cur.fence + 1,
        task,
        events: [{ statusUpdate: { taskId: id, contextId: cur.task.contextId ?? '', status } }],
        lease: null,
      });
      if (res.ok) {
        this.deps.runner().stop(scope, id);
        this.deps.committed(scope, id);
        await this.subtreeCancelled(ancestorToken(id));
        return res.record.task;
      }
    }
    throw new ServerBusyError('The task is changing too fast to cancel; retry');
  }

  /**
   * Remembers that the task with `token` was cancelled (here, or on a peer that refused a send for it), and
   * cancels every task running here below it.
   */
  async subtreeCancelled(token: string): Promise<void> {
    this.cancelled.add(token);
    await Promise.all(
      this.deps
        .runner()
        .workersBelow(token)
        .map((w) => this.cancelBelow(w.scope, w.taskId, token)),
    );
  }

  /** Cancels a task below the cancelled one with `token`; never rejects (a failure is logged). */
  async cancelBelow(scope: Scope, taskId: string, token: string): Promise<void> {
    const read = async () => {
      const record = await this.deps.store.getTask(scope, taskId);
      if (!record) throw new TaskNotFoundError();
      return record;
    };
    try {
      await this.cancel(scope, taskId, read, token);
    } catch (err) {
      // Already finished is fine: nothing runs below a finished turn. Anything else: the cascade still comes.
      if (err instanceof A2AError && err.reason === 'TASK_NOT_CANCELABLE') return;
      logSafely(this.deps.logger, 'warn', 'a task below a cancelled one could not be cancelled', {
        taskId,
        ...errorFields(err),
      });
    }
  }
}
