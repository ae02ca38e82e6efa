/**
 * Renews the leases of the turns running in this process (docs/semantics.md §4, ADR 0037), in the background.
 *
 * One timer for the whole process, ticking every third of the lease, rather than one per turn: a send must not
 * pay for a timer it almost never needs (most turns end long before a third of the lease). A worker is renewed
 * from its second tick on, so only turns that outlive a tick (at least a third of the lease, at most two thirds)
 * are renewed at all, and a lease never runs closer than a third of its length to lapsing while its worker
 * lives. A renewal the store refuses stops the worker (`TaskWorker.renewLease`); one the store fails is logged
 * and tried again at the next tick, and if the lease lapses meanwhile the worker learns of a takeover from its
 * next write or renewal.
 */
import { errorFields, logSafely } from '../observability/error-log.js';
import type { ServerLogger } from '../observability/logger.js';
import type { TaskWorker } from './task-worker.js';

/** Keeps the leases of the workers it is shown alive. */
export class LeaseKeeper {
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly leaseMs: number,
    private readonly workers: () => Iterable<TaskWorker>,
    private readonly logger: ServerLogger,
  ) {}

  /** Starts ticking if not yet started (cheap when it is: called on every turn start). */
  ensureStarted(): void {
    if (this.#timer !== undefined || this.#closed) return;
    this.#timer = setInterval(() => this.#tick(), Math.max(1, Math.floor(this.leaseMs / 3)));
    // Renewals must never keep a process alive that is otherwise done.
    this.#timer.unref();
  }

  /** Stops ticking for good (the server is closing; its turns have drained). */
  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** One tick: renews every running worker that has already seen a tick. */
  #tick(): void {
    for (const worker of this.workers()) {
      if (worker.aborted || !worker.isActive || worker.renewing) continue;
      if (worker.leaseTicks++ === 0) continue;
      worker.renewing = true;
      void this.#renew(worker).finally(() => (worker.renewing = false));
    }
  }

  async #renew(worker: TaskWorker): Promise<void> {
    try {
      if ((await worker.renewLease()) === 'lost') {
        logSafely(this.logger, 'warn', 'a task lease was lost; stopping its worker', {
          taskId: worker.taskId,
        });
      }
    } catch (err) {
      logSafely(this.logger, 'warn', 'could not renew a task lease; trying again at the next tick', {
        taskId: worker.taskId,
        ...errorFields(err, worker.idempotencyKey),
      });
    }
  }
}
