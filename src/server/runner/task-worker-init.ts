/**
 * What a `TaskWorker` is started with, and the outcomes its lease renewal and last-resort FAILED write report
 * to the runner (ADR 0037, ADR 0029).
 */
import type { DelegationHost } from '../delegation/delegate.js';
import type { Message } from '../../protocol/model.js';
import type { Clock } from '../../store/clock.js';
import type { Scope } from '../../store/scope.js';
import type { StoredTask } from '../../store/records.js';
import type { TaskStore } from '../../store/task-store.js';
import type { ServerLogger } from '../observability/logger.js';
import type { HistogramSink } from '../observability/metrics.js';
import type { Telemetry } from '../../telemetry/telemetry.js';
import type { WriteRetryPolicy } from './write-retry.js';

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
  readonly logger: ServerLogger;
  readonly retry: WriteRetryPolicy;
  /** True when the turn is run again after its worker was lost (ADR 0037). */
  readonly isResumed?: boolean;
  /** True when the turn was started by an out-of-band resume of an AUTH_REQUIRED task (ADR 0054). */
  readonly resumedOutOfBand?: boolean;
  /** How long a renewal extends the lease. */
  readonly leaseMs: number;
  /** The largest step result, in bytes of JSON (ADR 0038). */
  readonly maxStepResultBytes: number;
  /** Told after each committed write (push delivery's wake-up, ADR 0045). */
  readonly onCommitted?: (scope: Scope, taskId: string) => void;
  /** The server's delegation depth limit and default budget, and its cascade cancel (ADR 0061, ADR 0062). */
  readonly delegation?: DelegationHost;
  /** Spans for each step and store commit (ADR 0092); none: no span. */
  readonly telemetry?: Telemetry | undefined;
  /** Commit latency and batch size (ADR 0094); none: nothing timed. */
  readonly histograms?: HistogramSink | undefined;
}

/** What a lease renewal found. */
export type RenewalOutcome =
  /** The lease is extended. */
  | 'renewed'
  /** The task moved on without this worker (taken over, cancelled): the worker is now stopped. */
  | 'lost'
  /** Nothing to renew: the turn ended (its final write cleared the lease), or it never had a lease. */
  | 'idle';

/** How the runner's last-resort FAILED write ended. */
export type FailedWriteOutcome =
  /** The task is FAILED (or an earlier write of ours that finished it turned out to have landed). */
  | 'settled'
  /** The fence moved meanwhile (cancel, takeover): the task is someone else's now. */
  | 'stale';
