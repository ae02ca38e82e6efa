/**
 * Runs agents. `start` hands a task turn to its executor in the background and returns at once; the caller
 * follows progress through the store (blocking waits, streams). A turn that returns with the task still active
 * completes it; a turn that throws fails it. Workers are registered per task so a cancel in this process stops
 * its worker at once; a worker in another process learns it from its next fenced write.
 */
import type { Message } from '../../protocol/model.js';
import type { Clock } from '../../store/clock.js';
import type { Scope } from '../../store/scope.js';
import type { StoredTask } from '../../store/records.js';
import type { TaskStore } from '../../store/task-store.js';
import { StaleWriterError, type AgentExecutor } from '../agent-executor.js';
import type { ServerLogger } from '../observability/logger.js';
import { TaskWorker } from './task-worker.js';

/** One turn to run. */
export interface TurnInit {
  readonly scope: Scope;
  readonly record: StoredTask;
  readonly message: Message;
  readonly isContinuation: boolean;
  readonly requestedExtensions: readonly string[];
  readonly principal: string | undefined;
}

/** Starts and tracks workers. */
export class Runner {
  readonly #workers = new Map<string, TaskWorker>();
  readonly #running = new Set<Promise<void>>();

  constructor(
    private readonly store: TaskStore,
    private readonly executor: AgentExecutor,
    private readonly logger: ServerLogger,
    private readonly clock: Clock,
  ) {}

  /** Number of turns running in this process. */
  get activeCount(): number {
    return this.#running.size;
  }

  /** Starts a turn in the background. */
  start(turn: TurnInit): void {
    const worker = new TaskWorker({ store: this.store, clock: this.clock, ...turn });
    const id = workerId(turn.scope, turn.record.task.id);
    this.#workers.get(id)?.abort('superseded');
    this.#workers.set(id, worker);
    const done = this.#run(worker).finally(() => {
      if (this.#workers.get(id) === worker) this.#workers.delete(id);
      this.#running.delete(done);
    });
    this.#running.add(done);
  }

  /** Stops this process's worker of a task, if any (after a cancel committed). */
  stop(scope: Scope, taskId: string): void {
    this.#workers.get(workerId(scope, taskId))?.abort('cancelled');
  }

  /** Waits for every running turn (graceful shutdown). */
  async drain(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }

  async #run(worker: TaskWorker): Promise<void> {
    let failure: unknown;
    try {
      await this.executor.execute(worker);
    } catch (err) {
      failure = err;
    }
    try {
      await worker.drain();
      if (worker.aborted || !worker.isActive) return;
      if (failure === undefined) await worker.complete();
      else {
        this.logger.warn('agent turn failed', { taskId: worker.taskId, error: describe(failure) });
        await worker.fail(`Agent failed: ${describe(failure)}`);
      }
    } catch (err) {
      if (!(err instanceof StaleWriterError)) {
        this.logger.error('could not settle a task after its turn', {
          taskId: worker.taskId,
          error: describe(err),
        });
      }
    }
  }
}

function workerId(scope: Scope, taskId: string): string {
  return scope.tenant + '\u0000' + scope.owner + '\u0000' + taskId;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
