/**
 * A worker's fenced write, retried through transient store errors (ADR 0029). A thrown error from
 * `store.commit` (a dropped connection, a busy database) says nothing about the task: the write is tried again
 * after a capped exponential backoff with jitter, until a budget of waiting is spent. A refusal (`ok: false`) is
 * an answer, not an error: the fence moved, the worker is stale, and nothing is retried.
 *
 * A thrown commit may still have been applied (the acknowledgement was lost). Every attempt after a throw is
 * therefore pinned to the version the write was built on (`expectSeq`); if it is refused while the fence is still
 * ours, nobody else can have moved the task (only this worker writes under its fence), so the earlier attempt
 * landed and the write is done: it is never applied twice.
 */
import type { ServerLogger } from '../observability/logger.js';
import { errorFields, logSafely } from '../observability/error-log.js';
import type { StoredTask } from '../../store/records.js';
import type { Scope } from '../../store/scope.js';
import type { CommitResult, TaskStore, TaskWrite } from '../../store/task-store.js';

/** How worker writes are retried. */
export interface WriteRetryPolicy {
  /** Delay before the first retry; each further retry doubles it, up to `maxDelayMs`. */
  readonly firstDelayMs: number;
  readonly maxDelayMs: number;
  /** Waiting an agent's write (and the runner's own complete / fail) may spend before it gives up. */
  readonly writeBudgetMs: number;
  /** Waiting the last-resort FAILED write may spend, after a write was given up, before the task is left as is. */
  readonly failBudgetMs: number;
  /** Waits `ms` (tests advance a ManualClock instead). */
  readonly sleep: (ms: number) => Promise<void>;
  /** Uniform in [0, 1), for the jitter. */
  readonly random: () => number;
}

/** The schedule of ADR 0029: 50 ms doubling to 2 s; 10 s for a write, 60 s for the FAILED write. */
export const DEFAULT_WRITE_RETRY: WriteRetryPolicy = {
  firstDelayMs: 50,
  maxDelayMs: 2000,
  writeBudgetMs: 10_000,
  failBudgetMs: 60_000,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: Math.random,
};

/**
 * The delay before retry number `attempt` (0 for the first): `firstDelayMs * 2^attempt` capped at `maxDelayMs`,
 * scaled into [50%, 100%] so workers that failed together (one database restart) do not retry in lockstep.
 */
export function retryDelay(attempt: number, policy: WriteRetryPolicy): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling * (0.5 + policy.random() / 2));
}

/** Thrown when a write could not be stored within its budget. The task's output is incomplete from here on. */
export class StoreWriteError extends Error {
  override name = 'StoreWriteError';
  constructor(
    readonly taskId: string,
    readonly attempts: number,
    cause: unknown,
  ) {
    super(
      `task ${taskId}: the store failed ${attempts} time(s) in a row; the write was not stored (${
        cause instanceof Error ? cause.message : String(cause)
      })`,
      { cause },
    );
  }
}

/** Where a worker writes, and how it retries. */
export interface WriteTarget {
  readonly store: TaskStore;
  readonly scope: Scope;
  readonly taskId: string;
  /** The worker's fencing token. */
  readonly fence: number;
  readonly retry: WriteRetryPolicy;
  readonly logger: ServerLogger;
  /** True once the worker was stopped (cancelled, fenced out): no further attempt is made. */
  stopped(): boolean;
  /** The idempotency key of the turn's message, if any: a store error that quotes it is logged redacted. */
  key(): string | undefined;
}

/** What a retried write came to. */
export type RetriedWrite =
  /** Stored, by this attempt or (`landedEarlier`) by an attempt whose acknowledgement was lost. */
  | { readonly ok: true; readonly record: StoredTask; readonly landedEarlier: boolean }
  /** Refused: the fence moved (or the task is gone), or the worker was stopped while it waited. */
  | { readonly ok: false; readonly current: StoredTask | undefined };

/**
 * Commits the write `build` makes on `base`, pinned to `base.seq` from the first attempt (a write that must
 * never land on another version), retrying thrown errors within `budgetMs` of waiting.
 * @throws StoreWriteError when the budget is spent
 */
export async function commitPinned(
  t: WriteTarget,
  base: StoredTask,
  build: () => TaskWrite,
  budgetMs: number,
  what: string,
): Promise<RetriedWrite> {
  let res: CommitResult;
  try {
    res = await t.store.commit(t.scope, t.taskId, { ...build(), expectSeq: base.seq });
  } catch (err) {
    return retryAfterThrow(t, base, build, budgetMs, what, err);
  }
  return judge(t, base, res);
}

/**
 * Goes on after a write's first attempt threw `err` (the worker's hot path makes that attempt itself, so a write
 * that succeeds costs nothing here). Each attempt is built afresh, so its timestamps say when it was stored (a
 * poller of ListTasks `statusTimestampAfter` must not miss it), and pinned to `base.seq`.
 * @throws StoreWriteError when the budget is spent
 */
export async function retryAfterThrow(
  t: WriteTarget,
  base: StoredTask,
  build: () => TaskWrite,
  budgetMs: number,
  what: string,
  err: unknown,
): Promise<RetriedWrite> {
  let waited = 0;
  for (let attempt = 1; ; attempt++) {
    if (waited >= budgetMs) throw new StoreWriteError(t.taskId, attempt, err);
    const delay = Math.min(retryDelay(attempt - 1, t.retry), budgetMs - waited);
    logSafely(t.logger, 'warn', 'store write failed; retrying', {
      taskId: t.taskId,
      write: what,
      attempt,
      retryInMs: delay,
      ...errorFields(err, t.key()),
    });
    await t.retry.sleep(delay);
    waited += delay;
    if (t.stopped()) return { ok: false, current: undefined };
    try {
      return judge(t, base, await t.store.commit(t.scope, t.taskId, { ...build(), expectSeq: base.seq }));
    } catch (again) {
      err = again;
    }
  }
}

/**
 * A pinned attempt's result. Refused while the fence is still ours and the seq moved: only this worker writes
 * under its fence, so an earlier attempt of ours landed (its acknowledgement was lost) and that is the record.
 */
function judge(t: WriteTarget, base: StoredTask, res: CommitResult): RetriedWrite {
  if (res.ok) return { ok: true, record: res.record, landedEarlier: res.landedEarlier === true };
  const cur = res.current;
  if (cur !== undefined && cur.fence === t.fence && cur.seq !== base.seq) {
    return { ok: true, record: cur, landedEarlier: true };
  }
  return res;
}

/**
 * Runs one write again after thrown errors, the same write each time (its `writeId` lets the store recognise an
 * attempt that landed though its answer was lost, ADR 0052), with the backoff of `policy`, until `budgetMs` of
 * waiting is spent; then the last error is thrown. For the writes that are not a worker's: a continuation's
 * admitting commit, a new task's claim-and-create, a takeover, a cancel.
 */
export async function retryThrown<T>(
  attempt: () => Promise<T>,
  policy: WriteRetryPolicy,
  budgetMs: number,
  onRetry: (err: unknown, attempt: number, delayMs: number) => void,
): Promise<T> {
  let waited = 0;
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (waited >= budgetMs) throw err;
      const delay = Math.min(retryDelay(n - 1, policy), budgetMs - waited);
      onRetry(err, n, delay);
      await policy.sleep(delay);
      waited += delay;
    }
  }
}
