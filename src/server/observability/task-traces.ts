/**
 * What a server remembers of the trace each task started in (ADR 0093): the trace context of the send that
 * created the task, so that a keyed retry's span, a continuation's, a recovered turn's and every push delivery
 * of the task link to (or continue) that trace. Kept in this process's memory, bounded: a task created by
 * another replica or before a restart has no entry, and its spans then start without the link (the guide's
 * "Not built yet": the context is not yet stored with the task).
 */
import type { Scope } from '../../store/scope.js';
import type { TraceCarrier } from '../../telemetry/telemetry.js';

/** How many tasks' contexts are kept; the oldest is forgotten first. */
export const DEFAULT_TASK_TRACES = 10_000;

/** A bounded map from task to the trace context of the send that created it. */
export class TaskTraces {
  readonly #byTask = new Map<string, TraceCarrier>();

  constructor(private readonly max = DEFAULT_TASK_TRACES) {}

  /** Remembers the context of the send that created a task (a Map keeps insertion order: the first is oldest). */
  remember(scope: Scope, taskId: string, carrier: TraceCarrier): void {
    const id = taskKey(scope, taskId);
    this.#byTask.delete(id);
    this.#byTask.set(id, carrier);
    if (this.#byTask.size > this.max) this.#byTask.delete(this.#byTask.keys().next().value!);
  }

  /** The context the task was created in, when this process saw its creation. */
  of(scope: Scope, taskId: string): TraceCarrier | undefined {
    return this.#byTask.get(taskKey(scope, taskId));
  }

  get size(): number {
    return this.#byTask.size;
  }
}

function taskKey(scope: Scope, taskId: string): string {
  return scope.tenant + '\u0000' + scope.owner + '\u0000' + taskId;
}
