/**
 * The child side of the delegation extension (ADR 0039): at the start of each turn, the limits its message
 * carries are armed against the worker, and cleared when the turn ends. A budget that runs out ends the task
 * FAILED with a status message saying so; a lease the parent stopped renewing (it died, or was cut off) cancels
 * it, since nobody is left to read its result.
 *
 * The parent's renewals are read from the store (ADR 0044): its polls may reach any replica, and the one that
 * recorded a renewal need not be the one running the child.
 */
import type { Message } from '../../protocol/model.js';
import type { Clock } from '../../store/clock.js';
import { systemClock } from '../../store/clock.js';
import { jsonLineLogger, type ServerLogger } from '../observability/logger.js';
import { errorFields } from '../observability/error-log.js';
import { readChildLimits } from './delegation-extension.js';

/** The status message of a task whose budget ran out. */
export function budgetExhaustedText(deadline: number): string {
  return `The delegation budget ran out: its deadline ${new Date(deadline).toISOString()} passed before the task finished`;
}

/** What arming needs: the turn, and what to do when a limit is hit. */
export interface ArmChildLimitsInput {
  readonly message: Message;
  readonly tenant: string;
  readonly taskId: string;
  /**
   * When the parent last renewed the lease (the runner reads `TaskStore.lastParentRenewal`). Without it a leased
   * turn is never cancelled. A read that fails is logged and counts as no news: the lease runs on.
   */
  readonly lastRenewal?: () => Promise<number | undefined>;
  readonly clock?: Clock;
  /** Where a callback's failure is logged. Default: JSON lines on stderr. */
  readonly logger?: ServerLogger;
  /** How often the budget is checked (ms of wall time). Default 250. */
  readonly checkEveryMs?: number;
  /**
   * How often the lease's renewals are read (ms of wall time). Default: a quarter of the lease, at least
   * `checkEveryMs` and at most 5 s, so a lapse is seen within a quarter lease of happening, at a read per quarter.
   */
  readonly readRenewalsEveryMs?: number;
  /** Fail the task with `statusText` and stop the agent. */
  onBudgetExhausted(statusText: string): void | Promise<void>;
  /** Cancel the task and stop the agent. */
  onLeaseLapsed(): void | Promise<void>;
}

/**
 * Arms the turn's limits; returns the function that clears them (call it when the turn ends, however it ends).
 * At most one of the two callbacks is called, once. A turn without limits arms nothing.
 * @throws DelegationLimitsError when the message carries a malformed entry (the turn should fail with it)
 */
export function armChildLimits(input: ArmChildLimitsInput): () => void {
  const limits = readChildLimits(input.message);
  if (limits === undefined || (limits.deadline === undefined && limits.leaseMs === undefined))
    return () => {};
  const clock = input.clock ?? systemClock;
  const logger = input.logger ?? jsonLineLogger();
  const { lastRenewal, taskId } = input;
  const leaseMs = lastRenewal === undefined ? undefined : limits.leaseMs;
  const checkEveryMs = input.checkEveryMs ?? 250;
  const readEveryMs =
    input.readRenewalsEveryMs ?? Math.min(5_000, Math.max(checkEveryMs, Math.floor((leaseMs ?? 0) / 4)));
  // The lease runs from the start of the turn: the send that started it (or the recovery that resumed it) is
  // the last sign of the parent we can be sure of. A renewal recorded later moves it on.
  let renewedAt = clock.now();
  let lastRead = -Infinity;
  let reading = false;
  let done = false;
  const fire = (hit: () => void | Promise<void>) => {
    done = true;
    clearInterval(timer);
    // A timer has nobody to throw to: a failed callback is logged, and the task's own lease recovery takes over.
    void Promise.resolve()
      .then(hit)
      .catch((err: unknown) =>
        logger.error('delegation limit could not be enforced', { taskId, ...errorFields(err) }),
      );
  };
  const readRenewal = async () => {
    reading = true;
    try {
      const at = await lastRenewal!();
      if (at !== undefined && at > renewedAt) renewedAt = at;
    } catch (err) {
      logger.warn('delegation lease renewals could not be read', { taskId, ...errorFields(err) });
    } finally {
      reading = false;
    }
  };
  const check = async () => {
    if (done) return;
    if (limits.deadline !== undefined && clock.now() >= limits.deadline) {
      return fire(() => input.onBudgetExhausted(budgetExhaustedText(limits.deadline!)));
    }
    if (leaseMs === undefined || reading || clock.now() - renewedAt <= leaseMs / 2) return;
    // Past half the lease without news we know of: read what the store holds, at most every `readEveryMs`,
    // and always once more before calling the lease lapsed.
    const lapsed = clock.now() - renewedAt > leaseMs;
    if (!lapsed && Date.now() - lastRead < readEveryMs) return;
    lastRead = Date.now();
    await readRenewal();
    if (!done && clock.now() - renewedAt > leaseMs) fire(() => input.onLeaseLapsed());
  };
  const timer = setInterval(() => void check(), checkEveryMs);
  void check();
  return () => {
    done = true;
    clearInterval(timer);
  };
}
