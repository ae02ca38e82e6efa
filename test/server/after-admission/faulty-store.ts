/**
 * A thin fault-injecting wrapper around a real TaskStore (memory, SQLite), for the faults a real store cannot be
 * made to produce on demand: a read that fails while a waiter is parked on it, a commit that throws N times, a
 * commit that is applied and then reported as failed (a lost acknowledgement). Everything not overridden goes to
 * the real store unchanged, through a Proxy, so the wrapper follows the TaskStore interface as it grows.
 */
import type { StoredEvent, StoredTask } from '../../../src/store/records.js';
import type { Scope } from '../../../src/store/scope.js';
import type {
  CommitResult,
  CreateTaskInput,
  CreateTaskResult,
  TaskStore,
  TaskWrite,
} from '../../../src/store/task-store.js';

/** What the wrapper does with one commit: pass it on, throw without writing, or write and then throw. */
export type CommitFault = 'pass' | 'throw' | 'apply-then-throw';

/** Read operations that can be failed. */
export type ReadOp = 'getTask' | 'watch' | 'nextRecord' | 'readEvents';

/** An error shaped like a dropped database connection. */
export function connectionError(): Error {
  return Object.assign(new Error('Connection terminated unexpectedly (injected)'), { code: '57P01' });
}

/** The knobs of a faulty store. */
export class FaultControl {
  /** Decides each commit (1-based call number); default: every commit passes. */
  commitPlan: (n: number, write: TaskWrite) => CommitFault = () => 'pass';
  /** When set, `createTask` throws what it returns (nothing is written). */
  createTaskError: ((input: CreateTaskInput) => Error | undefined) | undefined;
  /** Commits attempted so far (every call, failed or not). */
  commitCalls = 0;
  /** Events the wrapper's watch yielded, per task id. */
  readonly yielded = new Map<string, number>();
  /** Waits (`watch` iterations, `nextRecord` calls) parked in the store right now. */
  parked = 0;
  #readError: Error | undefined;
  #failedOps = new Set<ReadOp>();
  #tripwire = tripwire();

  /**
   * Makes `ops` fail from now on. Waits already parked in `watch` / `nextRecord` fail at once, the way a poll's
   * query fails when its connection drops.
   */
  failReads(
    ops: readonly ReadOp[] = ['getTask', 'watch', 'nextRecord', 'readEvents'],
    err = connectionError(),
  ) {
    this.#readError = err;
    this.#failedOps = new Set(ops);
    this.#tripwire.trip(err);
  }

  /** Reads work again. */
  healReads(): void {
    this.#readError = undefined;
    this.#failedOps.clear();
    this.#tripwire = tripwire();
  }

  /** Throws the injected error when `op` is failing. */
  check(op: ReadOp): void {
    if (this.#readError && this.#failedOps.has(op)) throw this.#readError;
  }

  /** Rejects when reads are failed (for racing a parked wait). */
  get tripped(): Promise<never> {
    return this.#tripwire.promise;
  }
}

function tripwire(): { promise: Promise<never>; trip: (err: Error) => void } {
  let trip!: (err: Error) => void;
  const promise = new Promise<never>((_, reject) => (trip = reject));
  // Nobody may be racing it when it trips: that is not an unhandled rejection.
  promise.catch(() => undefined);
  return { promise, trip };
}

/** Wraps `inner`; `nextRecord` is offered only when the inner store has it (so the server's path is unchanged). */
export function faultyStore(inner: TaskStore): { store: TaskStore; control: FaultControl } {
  const control = new FaultControl();
  const overrides: Partial<Record<keyof TaskStore, unknown>> = {
    async createTask(scope: Scope, input: CreateTaskInput): Promise<CreateTaskResult> {
      const err = control.createTaskError?.(input);
      if (err) throw err;
      return inner.createTask(scope, input);
    },
    async commit(scope: Scope, taskId: string, write: TaskWrite): Promise<CommitResult> {
      const fault = control.commitPlan(++control.commitCalls, write);
      if (fault === 'throw') throw connectionError();
      const res = await inner.commit(scope, taskId, write);
      if (fault === 'apply-then-throw') throw connectionError();
      return res;
    },
    async getTask(scope: Scope, taskId: string): Promise<StoredTask | undefined> {
      control.check('getTask');
      return inner.getTask(scope, taskId);
    },
    async readEvents(scope: Scope, taskId: string, afterSeq: number): Promise<StoredEvent[]> {
      control.check('readEvents');
      return inner.readEvents(scope, taskId, afterSeq);
    },
    watch(scope: Scope, taskId: string, afterSeq: number, signal: AbortSignal): AsyncIterable<StoredEvent> {
      return watchWithFaults(inner, control, scope, taskId, afterSeq, signal);
    },
  };
  if (inner.nextRecord) {
    const next = inner.nextRecord.bind(inner);
    overrides.nextRecord = async (
      scope: Scope,
      taskId: string,
      afterSeq: number,
      signal: AbortSignal,
      until?: (r: StoredTask) => boolean,
    ): Promise<StoredTask | undefined> => {
      control.check('nextRecord');
      control.parked++;
      try {
        return await Promise.race([next(scope, taskId, afterSeq, signal, until), control.tripped]);
      } finally {
        control.parked--;
      }
    };
  }
  const store = new Proxy(inner, {
    get(target, prop) {
      if (typeof prop === 'string' && Object.hasOwn(overrides, prop))
        return overrides[prop as keyof TaskStore];
      // The real store as `this` (getters and methods read its private fields), never the proxy.
      const value: unknown = Reflect.get(target, prop);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store, control };
}

async function* watchWithFaults(
  inner: TaskStore,
  control: FaultControl,
  scope: Scope,
  taskId: string,
  afterSeq: number,
  signal: AbortSignal,
): AsyncGenerator<StoredEvent> {
  const it = inner.watch(scope, taskId, afterSeq, signal)[Symbol.asyncIterator]();
  try {
    for (;;) {
      control.check('watch');
      control.parked++;
      let next: IteratorResult<StoredEvent>;
      try {
        next = await Promise.race([it.next(), control.tripped]);
      } finally {
        control.parked--;
      }
      if (next.done) return;
      control.yielded.set(taskId, (control.yielded.get(taskId) ?? 0) + 1);
      yield next.value;
    }
  } finally {
    // Not awaited: a `next()` may still be parked in the inner watch; the caller's signal ends it.
    void it.return?.(undefined)?.catch(() => undefined);
  }
}
