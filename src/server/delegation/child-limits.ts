/**
 * The child side of the delegation extension (ADR 0039): at the start of each turn, the limits its message
 * carries are armed against the worker, and cleared when the turn ends. A budget that runs out ends the task
 * FAILED with a status message saying so; a lease the parent stopped renewing (it died, or was cut off) cancels
 * it, since nobody is left to read its result.
 */
import type { Message } from '../../protocol/model.js';
import type { Clock } from '../../store/clock.js';
import { systemClock } from '../../store/clock.js';
import { jsonLineLogger, type ServerLogger } from '../observability/logger.js';
import { errorFields } from '../observability/error-log.js';
import { readChildLimits } from './delegation-extension.js';
import type { LeaseRenewals } from './lease-renewals.js';

/** The status message of a task whose budget ran out. */
export function budgetExhaustedText(deadline: number): string {
  return `The delegation budget ran out: its deadline ${new Date(deadline).toISOString()} passed before the task finished`;
}

/** What arming needs: the turn, and what to do when a limit is hit. */
export interface ArmChildLimitsInput {
  readonly message: Message;
  readonly tenant: string;
  readonly taskId: string;
  /** Where renewals are recorded (`withLeaseRenewals`); without it a leased turn is never cancelled. */
  readonly renewals?: LeaseRenewals;
  readonly clock?: Clock;
  /** Where a callback's failure is logged. Default: JSON lines on stderr. */
  readonly logger?: ServerLogger;
  /** How often the limits are checked (ms of wall time). Default 250. */
  readonly checkEveryMs?: number;
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
  const { renewals, tenant, taskId } = input;
  const leaseMs = renewals === undefined ? undefined : limits.leaseMs;
  // The lease runs from the start of the turn: the send that started it is the parent's first sign of life.
  if (leaseMs !== undefined) renewals!.renew(tenant, taskId);
  let done = false;
  const fire = (hit: () => void | Promise<void>) => {
    done = true;
    clearInterval(timer);
    // A timer has nobody to throw to: a failed callback is logged, and the task's own lease recovery takes over.
    void Promise.resolve()
      .then(hit)
      .catch((err: unknown) =>
        (input.logger ?? jsonLineLogger()).error('delegation limit could not be enforced', {
          taskId,
          ...errorFields(err),
        }),
      );
  };
  const check = () => {
    if (done) return;
    const now = clock.now();
    if (limits.deadline !== undefined && now >= limits.deadline) {
      fire(() => input.onBudgetExhausted(budgetExhaustedText(limits.deadline!)));
    } else if (leaseMs !== undefined && now - (renewals!.lastRenewal(tenant, taskId) ?? now) > leaseMs) {
      fire(() => input.onLeaseLapsed());
    }
  };
  const timer = setInterval(check, input.checkEveryMs ?? 250);
  check();
  return () => {
    done = true;
    clearInterval(timer);
    if (leaseMs !== undefined) renewals!.forget(tenant, taskId);
  };
}
