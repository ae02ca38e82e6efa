/**
 * Recovery on a schedule (docs/semantics.md §4, ADR 0037): once at start-up, so a restarted server picks up what
 * its predecessor left running, then every half lease, so a task whose worker died is taken over within one and
 * a half leases of its last renewal even if nobody asks about it. Every replica sweeps: unlike retention, a sweep
 * that finds nothing costs one indexed query, and racing sweeps are safe (the takeover is a compare-and-set), so
 * there is no leader to elect and no leader to lose. A failed sweep is logged and tried again at the next tick.
 */
import { errorFields, logSafely } from '../observability/error-log.js';
import type { ServerLogger } from '../observability/logger.js';
import type { RecoveryReport, StillLeased, TaskRecovery } from './task-recovery.js';

/** What the start-up sweep did, and what it left to later sweeps: tasks whose lease has not lapsed yet. */
export interface StartupRecoveryReport extends RecoveryReport {
  /** Absent when the store takes no lease census. */
  readonly stillLeased?: StillLeased;
}

/** How recovery runs. Every field has a default. */
export interface RecoveryOptions {
  /** Time between sweeps (default: half the lease). Each waits this long plus up to 10% of random jitter. */
  readonly intervalMs?: number;
  /** Times a task may be resumed; the next loss fails it (default 3). */
  readonly maxResumes?: number;
  /** Tasks read per store query in a sweep (default 1,000; ADR 0132). */
  readonly batchSize?: number;
  /** Takeovers of one batch in flight at once (default 128; ADR 0130, ADR 0132). */
  readonly concurrency?: number;
  /** Turns resumed by recovery running here at once (default 256; ADR 0137); past it, tasks wait lapsed. */
  readonly maxResumedTurns?: number;
}

/** How long after a resumed turn freed a slot the next sweep starts, when tasks were deferred (ADR 0137). */
const SLOT_SWEEP_DELAY_MS = 20;

const NOTHING: RecoveryReport = { resumed: 0, failed: 0, renewed: 0, skipped: 0, deferred: 0 };

/** Runs recovery at start-up and periodically while started. */
export class RecoverySchedule {
  /** The start-up sweep's report (all zero when it failed; the failure is logged). Set by `start`. */
  startup: Promise<StartupRecoveryReport> = Promise.resolve(NOTHING);
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<RecoveryReport> | undefined;
  #stopped = true;
  /** Tasks the last sweep deferred (ADR 0137): while any wait, a resumed turn's end starts the next sweep. */
  #deferred = 0;
  #cancelSlotWait: (() => void) | undefined;

  constructor(
    private readonly recovery: TaskRecovery,
    private readonly logger: ServerLogger,
    readonly intervalMs: number,
  ) {
    if (!(intervalMs > 0)) throw new RangeError('recovery intervalMs must be positive');
  }

  /** Runs the start-up sweep now and arms the timer. Idempotent. */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.startup = this.runOnce()
      .then(async (report): Promise<StartupRecoveryReport> => {
        const stillLeased = await this.recovery.stillLeased();
        return stillLeased === undefined ? report : { ...report, stillLeased };
      })
      .finally(() => this.#arm());
  }

  /** Stops the timer and waits for a sweep in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#cancelSlotWait?.();
    this.#cancelSlotWait = undefined;
    await this.#running;
  }

  /** One sweep (never two at once in this process); resolves with its report, all zero if it failed. */
  runOnce(): Promise<RecoveryReport> {
    this.#running ??= this.#run().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  #arm(): void {
    if (this.#stopped) return;
    this.#cancelSlotWait?.();
    this.#cancelSlotWait = undefined;
    const sweep = () => {
      if (this.#timer) clearTimeout(this.#timer);
      this.#cancelSlotWait?.();
      this.#cancelSlotWait = undefined;
      void this.runOnce().finally(() => this.#arm());
    };
    const wait = this.intervalMs * (1 + Math.random() * 0.1);
    this.#timer = setTimeout(sweep, wait);
    // A pending sweep must never keep a process alive that is otherwise done.
    this.#timer.unref();
    if (this.#deferred > 0) {
      // Tasks wait for a slot: the first resumed turn to end starts the next sweep, a moment later so that the
      // turns ending together are one sweep, not one each.
      this.#cancelSlotWait = this.recovery.onSlotFreed(() => {
        this.#cancelSlotWait = undefined;
        if (this.#timer) clearTimeout(this.#timer);
        this.#timer = setTimeout(sweep, SLOT_SWEEP_DELAY_MS);
        this.#timer.unref();
      });
    }
  }

  async #run(): Promise<RecoveryReport> {
    try {
      const report = await this.recovery.runOnce();
      this.#deferred = report.deferred;
      return report;
    } catch (err) {
      logSafely(
        this.logger,
        'warn',
        'recovery sweep failed; retrying at the next interval',
        errorFields(err),
      );
      return NOTHING;
    }
  }
}
