/**
 * What a server remembers of the trace each task started in (ADR 0093): the trace context of the send that
 * created the task, so that a keyed retry's span, a continuation's, a recovered turn's and every push delivery
 * of the task link to (or continue) that trace. Kept twice: in this process's memory, bounded, for the common
 * case (a retry answered by the replica that created the task), and in the store as a step record under a name
 * no agent step can have (`a2a-once/trace-context`: agents' step names cannot hold `/`), so another replica or a
 * restarted process finds it too, with no schema change. Written only with telemetry, after the send's claim,
 * without holding the send up; a write that fails is logged and the trace simply loses that link.
 */
import type { Scope } from '../../store/scope.js';
import type { TaskStore } from '../../store/task-store.js';
import type { TraceCarrier } from '../../telemetry/telemetry.js';
import { errorFields, logSafely } from './error-log.js';
import type { ServerLogger } from './logger.js';

/** How many tasks' contexts are kept in memory; the oldest is forgotten first. */
export const DEFAULT_TASK_TRACES = 10_000;

/** The step name the creating send's trace context is stored under. */
export const TRACE_CONTEXT_STEP = 'a2a-once/trace-context';

/** Where the stored copy goes, when there is one. */
export interface TraceStore {
  readonly store: TaskStore;
  readonly logger: ServerLogger;
}

/** A bounded map from task to the trace context of the send that created it, backed by the store. */
export class TaskTraces {
  readonly #byTask = new Map<string, TraceCarrier>();
  readonly #writes = new Set<Promise<void>>();

  constructor(
    private readonly durable: TraceStore | undefined = undefined,
    private readonly max = DEFAULT_TASK_TRACES,
  ) {}

  /** Remembers the context of the send that created a task (a Map keeps insertion order: the first is oldest). */
  remember(scope: Scope, taskId: string, carrier: TraceCarrier): void {
    const id = taskKey(scope, taskId);
    this.#byTask.delete(id);
    this.#byTask.set(id, carrier);
    if (this.#byTask.size > this.max) this.#byTask.delete(this.#byTask.keys().next().value!);
  }

  /** Remembers it here and stores it with the task, under the fence the task was created with. */
  created(scope: Scope, taskId: string, fence: number, carrier: TraceCarrier): void {
    this.remember(scope, taskId, carrier);
    const d = this.durable;
    if (d === undefined || carrier.traceparent === undefined) return;
    const write: Promise<void> = d.store
      .recordStep(scope, taskId, { name: TRACE_CONTEXT_STEP, fence, result: { ...carrier } })
      .then(
        () => undefined,
        (err: unknown) =>
          logSafely(d.logger, 'warn', 'the trace context of a new task could not be stored', {
            taskId,
            ...errorFields(err),
          }),
      )
      .finally(() => this.#writes.delete(write));
    this.#writes.add(write);
  }

  /** The context the task was created in, when this process saw its creation. */
  of(scope: Scope, taskId: string): TraceCarrier | undefined {
    return this.#byTask.get(taskKey(scope, taskId));
  }

  /** The context the task was created in: from memory, else from the store (then kept in memory). */
  async find(scope: Scope, taskId: string): Promise<TraceCarrier | undefined> {
    const known = this.of(scope, taskId);
    if (known !== undefined || this.durable === undefined) return known;
    try {
      const step = await this.durable.store.getStep(scope, taskId, TRACE_CONTEXT_STEP);
      const carrier = carrierOf(step?.result);
      if (carrier !== undefined) this.remember(scope, taskId, carrier);
      return carrier;
    } catch (err) {
      logSafely(this.durable.logger, 'warn', 'the trace context of a task could not be read', {
        taskId,
        ...errorFields(err),
      });
      return undefined;
    }
  }

  /** Waits for the stores of contexts under way (before the store closes). */
  async drain(): Promise<void> {
    while (this.#writes.size > 0) await Promise.allSettled([...this.#writes]);
  }

  get size(): number {
    return this.#byTask.size;
  }
}

/** A stored context, if it is one: string values only, a `traceparent` among them. */
function carrierOf(v: unknown): TraceCarrier | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out.traceparent === undefined ? undefined : out;
}

function taskKey(scope: Scope, taskId: string): string {
  return scope.tenant + '\u0000' + scope.owner + '\u0000' + taskId;
}
