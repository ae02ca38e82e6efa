/**
 * Retention on a schedule, inside the server (docs/semantics.md §6, ADR 0035). A SQL store deletes nothing by
 * itself: without this, keys never turn into tombstones, finished tasks pile up, and an abandoned interrupted task
 * holds its key forever unless an operator remembers to run `a2a-once sweep`. So every server runs the purge
 * periodically, and the processes sharing a store elect one of them (`TaskStore.tryLead`) so that replicas do not
 * all sweep at once: the leader renews its lease on each run, and another replica takes over once it lapses.
 *
 * A run is bounded (`maxBatchesPerRun`), so one run never holds the event loop or the database for long; what it
 * leaves is picked up by the next. A failed run is logged and retried at the next tick: retention is never
 * allowed to take the server down.
 */
import { hostname } from 'node:os';
import { newUuid } from '../../protocol/uuid.js';
import {
  DEFAULT_INTERRUPTED_MAX_AGE_MS,
  DEFAULT_TERMINAL_MAX_AGE_MS,
  type PurgeReport,
  type RetentionPolicy,
} from '../../store/retention.js';
import type { TaskStore } from '../../store/task-store.js';
import type { ServerLogger } from '../observability/logger.js';

/** The role name under which the retention leader holds its lease. */
export const RETENTION_ROLE = 'retention';

/** How the server runs retention. Every field has a default. */
export interface RetentionScheduleOptions {
  /** Time between runs (default 60 s). Each run waits this long plus up to 10% of random jitter. */
  readonly intervalMs?: number;
  /** Finished tasks not written for this long are deleted (default 7 days; the memory store also has its own TTL). */
  readonly terminalMaxAgeMs?: number;
  /** Tombstones are deleted this long after they became tombstones (default: the store's own setting). */
  readonly tombstoneMaxAgeMs?: number;
  /** INPUT_REQUIRED / AUTH_REQUIRED tasks nobody continued for this long are ended (default 30 days). */
  readonly interruptedMaxAgeMs?: number;
  /** Rows per batch (default: the store's own, 1,000; SQLite 100, ADR 0138). */
  readonly batchSize?: number;
  /** Batches per run at most (default 100): the rest waits for the next run. */
  readonly maxBatchesPerRun?: number;
  /** This process's name in the leader lease (default: host, pid and a random suffix). */
  readonly holder?: string;
  /** Called after each run this process led, with what it did (for hosts that report it). */
  readonly onRun?: (report: PurgeReport) => void;
}

/** The defaults, applied. */
export interface ResolvedRetentionSchedule {
  readonly intervalMs: number;
  readonly terminalMaxAgeMs: number;
  readonly tombstoneMaxAgeMs: number | undefined;
  readonly interruptedMaxAgeMs: number;
  /** Undefined: the store's own default. */
  readonly batchSize: number | undefined;
  readonly maxBatchesPerRun: number;
  readonly holder: string;
  readonly onRun: ((report: PurgeReport) => void) | undefined;
}

/** Applies the defaults. */
export function resolveRetentionSchedule(o: RetentionScheduleOptions = {}): ResolvedRetentionSchedule {
  const intervalMs = o.intervalMs ?? 60_000;
  if (!(intervalMs > 0)) throw new RangeError('retention intervalMs must be positive');
  return {
    intervalMs,
    terminalMaxAgeMs: o.terminalMaxAgeMs ?? DEFAULT_TERMINAL_MAX_AGE_MS,
    tombstoneMaxAgeMs: o.tombstoneMaxAgeMs,
    interruptedMaxAgeMs: o.interruptedMaxAgeMs ?? DEFAULT_INTERRUPTED_MAX_AGE_MS,
    batchSize: o.batchSize,
    maxBatchesPerRun: o.maxBatchesPerRun ?? 100,
    holder: o.holder ?? `${hostname()}:${process.pid}:${newUuid().slice(0, 8)}`,
    onRun: o.onRun,
  };
}

/**
 * The leader lease lasts three intervals: a leader that misses one tick (a long GC pause, a slow run) keeps its
 * role, and a dead leader is replaced within three intervals.
 */
const LEASE_INTERVALS = 3;

/** Runs retention periodically while started. */
export class RetentionSchedule {
  readonly settings: ResolvedRetentionSchedule;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<PurgeReport | undefined> | undefined;
  #stopped = true;

  constructor(
    private readonly store: TaskStore,
    private readonly logger: ServerLogger,
    options: RetentionScheduleOptions = {},
  ) {
    this.settings = resolveRetentionSchedule(options);
  }

  /** Starts the timer (the first run comes after one interval). Idempotent. */
  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#arm();
  }

  /** Stops the timer and waits for a run in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /**
   * One run: takes (or renews) the leader lease, and purges when it holds it. Returns the report, or undefined
   * when another process leads or the run failed (logged). Runs never overlap within a process.
   */
  runOnce(): Promise<PurgeReport | undefined> {
    this.#running ??= this.#run().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  #arm(): void {
    if (this.#stopped) return;
    const wait = this.settings.intervalMs * (1 + Math.random() * 0.1);
    this.#timer = setTimeout(() => {
      void this.runOnce().finally(() => this.#arm());
    }, wait);
    // A pending run must never keep a process alive that is otherwise done.
    this.#timer.unref();
  }

  async #run(): Promise<PurgeReport | undefined> {
    const s = this.settings;
    try {
      const leading = await this.store.tryLead(RETENTION_ROLE, s.holder, s.intervalMs * LEASE_INTERVALS);
      if (!leading) return undefined;
      const policy: RetentionPolicy = {
        terminalMaxAgeMs: s.terminalMaxAgeMs,
        interruptedMaxAgeMs: s.interruptedMaxAgeMs,
        batchSize: s.batchSize,
        maxBatches: s.maxBatchesPerRun,
        ...(s.tombstoneMaxAgeMs === undefined ? {} : { tombstoneMaxAgeMs: s.tombstoneMaxAgeMs }),
      };
      const report = await this.store.purgeExpired(policy);
      const did = report.tasks + report.abandoned + report.keys + report.tombstones;
      if (did > 0) {
        this.logger.info('retention run', {
          tasks: report.tasks,
          abandoned: report.abandoned,
          keys: report.keys,
          tombstones: report.tombstones,
          complete: report.complete,
        });
      }
      try {
        s.onRun?.(report);
      } catch (err) {
        this.logger.warn('retention onRun callback failed', { error: describe(err) });
      }
      return report;
    } catch (err) {
      this.logger.warn('retention run failed; retrying at the next interval', {
        error: describe(err),
        stack: err instanceof Error ? err.stack : undefined,
      });
      return undefined;
    }
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
