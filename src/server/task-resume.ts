/**
 * Resuming a task whose credential arrived out of band (A2A §7.6, ADR 0054). An agent parks a task with
 * `ctx.requireAuth(...)`; the client then either sends a follow-up message (a continuation, admitted like any
 * other) or gets its credential to the agent some other way (an OAuth callback, a vault). For the second, the host
 * calls `resumeTask`: one fenced write moves the task from AUTH_REQUIRED to WORKING with a new fencing token and
 * a lease, and a turn starts with `ctx.resumedOutOfBand`. The write is a compare-and-set, so a resume racing a
 * follow-up message, a cancel or another resume starts at most one turn; a repeated resume (a callback delivered
 * twice) finds the task no longer waiting and starts nothing.
 */
import { isoAt } from '../protocol/iso-time.js';
import { ServerBusyError, TaskNotFoundError } from '../protocol/errors.js';
import type { Message, Task, TaskStatus } from '../protocol/model.js';
import type { Clock } from '../store/clock.js';
import type { StoredTask } from '../store/records.js';
import type { Scope } from '../store/scope.js';
import type { LeaseGrant, TaskStore, TaskWrite } from '../store/task-store.js';
import { errorFields, logSafely } from './observability/error-log.js';
import type { ServerLogger } from './observability/logger.js';
import { agentMessage } from './runner/message-init.js';
import type { Runner } from './runner/runner.js';
import { newWriteId } from './runner/write-id.js';
import { retryThrown, type WriteRetryPolicy } from './runner/write-retry.js';
import { applyStatusUpdate } from './task-events.js';
import { lostTurnOf } from './recovery/lost-turn.js';

/** Which task to resume: its id, and the tenant and principal it belongs to (default: none). */
export interface ResumeTarget {
  readonly taskId: string;
  readonly tenant?: string;
  readonly principal?: string;
}

/** Options of a resume. */
export interface ResumeOptions {
  /** A status message for the WORKING status the resume writes (agent role), such as "authorized, resuming". */
  readonly note?: string;
}

/** What a resume did. */
export type ResumeResult =
  /** The task was waiting for authorization: it is WORKING now and a turn runs. */
  | { readonly resumed: true; readonly task: Task }
  /**
   * The task was not waiting for authorization (already resumed, continued by a message, cancelled, finished):
   * nothing was written and nothing started. `task` is how it stands.
   */
  | { readonly resumed: false; readonly task: Task };

/** What resuming needs of the server. */
export interface TaskResumeDeps {
  readonly store: TaskStore;
  readonly clock: Clock;
  readonly logger: ServerLogger;
  /** Resolved lazily: the runner is built after this. */
  readonly runner: () => Runner;
  /** The worker lease of the resumed turn, granted in the write that resumes it (ADR 0037). */
  readonly lease: (fence: number) => LeaseGrant;
  /** How the resuming write is retried when the store throws (ADR 0052). */
  readonly retry: WriteRetryPolicy & { readonly writeBudgetMs: number };
}

/** Resumes AUTH_REQUIRED tasks whose credential arrived out of band. */
export class TaskResume {
  constructor(private readonly deps: TaskResumeDeps) {}

  /**
   * Resumes `target` if it waits in AUTH_REQUIRED.
   * @throws TaskNotFoundError when no such task is visible in the target's tenant and principal
   */
  async resume(target: ResumeTarget, options: ResumeOptions = {}): Promise<ResumeResult> {
    const { store } = this.deps;
    const scope: Scope = { tenant: target.tenant ?? '', owner: target.principal ?? '' };
    const id = target.taskId;
    for (let attempt = 0; attempt < 16; attempt++) {
      const cur = await store.getTask(scope, id);
      if (!cur || cur.kind !== 'task') throw new TaskNotFoundError({ metadata: { taskId: id } });
      if (cur.task.status.state !== 'TASK_STATE_AUTH_REQUIRED') return { resumed: false, task: cur.task };
      const turn = lostTurnOf(cur.task);
      if (turn === undefined) {
        // Only a send creates tasks, so its history has a user message; a task without one has no turn to run.
        throw new TaskNotFoundError({ message: 'The task has no message to resume its turn with' });
      }
      const write = this.#write(cur, options);
      const res = await retryThrown(
        () => store.commit(scope, id, write),
        this.deps.retry,
        this.deps.retry.writeBudgetMs,
        (err, n, retryInMs) =>
          logSafely(this.deps.logger, 'warn', 'store write failed; retrying', {
            taskId: id,
            write: 'resume',
            attempt: n,
            retryInMs,
            ...errorFields(err),
          }),
      );
      if (res.ok) {
        this.#start(scope, res.record, turn.message);
        return { resumed: true, task: res.record.task };
      }
    }
    throw new ServerBusyError('The task is changing too fast to resume it; retry');
  }

  #write(cur: StoredTask, options: ResumeOptions): TaskWrite {
    const contextId = cur.task.contextId ?? '';
    const timestamp = isoAt(this.deps.clock.now());
    const status: TaskStatus =
      options.note === undefined
        ? { state: 'TASK_STATE_WORKING', timestamp }
        : {
            state: 'TASK_STATE_WORKING',
            message: agentMessage(options.note, cur.task.id, contextId),
            timestamp,
          };
    const event = { taskId: cur.task.id, contextId, status };
    return {
      expectFence: cur.fence,
      expectSeq: cur.seq,
      // A new fencing token: whatever wrote the AUTH_REQUIRED status can no longer write (docs/semantics.md §4).
      nextFence: cur.fence + 1,
      task: applyStatusUpdate(cur.task, event),
      events: [{ statusUpdate: event }],
      lease: this.deps.lease(cur.fence + 1),
      // The same write on every attempt: one whose answer was lost is recognised, not applied twice (ADR 0052).
      writeId: newWriteId(),
    };
  }

  #start(scope: Scope, record: StoredTask, message: Message): void {
    void this.deps.runner().start({
      scope,
      record,
      message,
      isContinuation: true,
      requestedExtensions: [],
      principal: scope.owner === '' ? undefined : scope.owner,
      resumedOutOfBand: true,
    });
  }
}
