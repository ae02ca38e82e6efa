/**
 * Durable steps driven directly over a real store, one "worker" per fence (docs/semantics.md §4, ADR 0120 to
 * 0123): a `StepWorker` is what a `TaskWorker` gives `DurableSteps`, with its signal, lease renewal and the
 * task's FAILED write in the test's hands. A crash is a worker left where it stopped (a store call or `fn` that
 * never settles, as in a killed process); a takeover raises the task's fence in the store, as recovery does, and
 * the next worker runs under the new fence.
 */
import { StaleWriterError } from '../../../src/server/agent-executor.js';
import type { RenewalOutcome } from '../../../src/server/runner/task-worker-init.js';
import { DurableSteps, DEFAULT_MAX_STEP_RESULT_BYTES } from '../../../src/server/runner/durable-step.js';
import { DEFAULT_WRITE_RETRY } from '../../../src/server/runner/write-retry.js';
import type { TaskStore } from '../../../src/store/task-store.js';
import { makeTask } from '../../store-contract/fixtures/tasks.js';
import { keepingLogger } from '../leases/harness.js';

export const SCOPE = { tenant: '', owner: '' } as const;

/** A task in `store`, at fence 1. */
export async function newTask(store: TaskStore, id: string): Promise<void> {
  await store.createTask(SCOPE, { task: makeTask(id) });
}

/** Raises the task's fence by one, as a takeover does; returns the new fence. */
export async function takeOver(store: TaskStore, taskId: string): Promise<number> {
  const cur = await store.getTask(SCOPE, taskId);
  if (!cur || cur.kind !== 'task') throw new Error(`no task ${taskId}`);
  const res = await store.commit(SCOPE, taskId, {
    expectFence: cur.fence,
    nextFence: cur.fence + 1,
    task: cur.task,
    events: [],
  });
  if (!res.ok) throw new Error('takeover refused');
  return cur.fence + 1;
}

/** One worker's steps under `fence`. */
export class StepWorker {
  readonly controller = new AbortController();
  readonly logger = keepingLogger();
  readonly failures: string[] = [];
  renewals = 0;
  readonly steps: DurableSteps;
  /** What `renewLease` does; by default asks the store whether the fence still holds. */
  renew: () => Promise<RenewalOutcome>;

  constructor(
    readonly store: TaskStore,
    readonly taskId: string,
    readonly fence: number,
    options: { leaseMs?: number } = {},
  ) {
    this.renew = async () => {
      const cur = await store.getTask(SCOPE, taskId);
      return cur?.fence === fence ? 'renewed' : 'lost';
    };
    this.steps = new DurableSteps({
      store,
      scope: SCOPE,
      taskId,
      fence,
      maxResultBytes: DEFAULT_MAX_STEP_RESULT_BYTES,
      retry: { ...DEFAULT_WRITE_RETRY, writeBudgetMs: 0 },
      logger: this.logger,
      leaseMs: options.leaseMs ?? 30_000,
      assertCanWrite: () => {
        if (this.controller.signal.aborted) throw new StaleWriterError(taskId);
      },
      confirmHold: async () => {
        if ((await this.renewLease()) === 'lost') throw this.stop();
      },
      renewLease: () => this.renewLease(),
      signal: () => this.controller.signal,
      failTask: (text) => {
        this.failures.push(text);
        return Promise.resolve();
      },
      fencedOut: () => this.stop(),
      key: () => undefined,
    });
  }

  async renewLease(): Promise<RenewalOutcome> {
    this.renewals++;
    const outcome = await this.renew();
    if (outcome === 'lost') this.stop();
    return outcome;
  }

  /** Stops the worker as a refused write does: its signal aborts with StaleWriterError. */
  stop(): StaleWriterError {
    const err = new StaleWriterError(this.taskId);
    if (!this.controller.signal.aborted) this.controller.abort(err);
    return err;
  }

  /** Log lines whose message includes `text`. */
  lines(text: string): unknown[] {
    return this.logger.lines.filter((l) => l.message.includes(text));
  }
}

/** A promise that never settles: a process killed at that point. */
export function never<T>(): Promise<T> {
  return new Promise<T>(() => undefined);
}

/** A store whose calls named in `hang` never settle once `armed` (a worker frozen or killed there). */
export function hangingStore(
  store: TaskStore,
  hang: (method: string, args: unknown[]) => boolean,
): TaskStore {
  return new Proxy(store, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        hang(String(prop), args) ? never() : (value as (...a: unknown[]) => unknown).apply(target, args);
    },
  });
}

/** Settles when `fn` returns true, polling. */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 2));
  }
}
