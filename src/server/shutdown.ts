/**
 * A graceful shutdown of a server (docs/guides/production.md "Shutting down", ADR 0088): what `A2AServer.close`
 * does, step by step, each bounded in time so the process exits within the grace even with an agent that never
 * returns.
 */
import type { A2ARequestHandler } from './a2a-request-handler.js';
import type { DrainGate } from './http/probes/drain-gate.js';
import { errorFields, logSafely } from './observability/error-log.js';
import type { RecoverySchedule } from './recovery/recovery-schedule.js';
import type { RetentionSchedule } from './retention/retention-schedule.js';

/** How a shutdown goes. */
export interface CloseOptions {
  /** How long running turns may go on before they are given up (default 10 s; 0: give them up at once). */
  graceMs?: number;
}

/** Default of `CloseOptions.graceMs`. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

/**
 * After the grace: how long blocking sends get to read their task's latest state and answer, and the store to
 * take the shortened leases, before the store closes under them.
 */
export const SHUTDOWN_MARGIN_MS = 1000;

/** A given-up turn's lease, cut to this: it lapses at once, and another replica's recovery takes it over. */
const RELEASED_LEASE_MS = 1;

interface Parts {
  readonly handler: A2ARequestHandler;
  readonly gate: DrainGate;
  readonly recovery: RecoverySchedule | undefined;
  readonly retention: RetentionSchedule | undefined;
}

function checkGrace(graceMs: number): number {
  if (!Number.isFinite(graceMs) || graceMs < 0) throw new RangeError('close: graceMs must be 0 or more ms');
  return graceMs;
}

/** Resolves with true when `p` settles within `ms`, false otherwise. */
async function within(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      p.then(
        () => true,
        () => true,
      ),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Drains and closes; see `A2AServer.close`. */
export async function shutDown(parts: Parts, options: CloseOptions): Promise<void> {
  const graceMs = checkGrace(options.graceMs ?? DEFAULT_SHUTDOWN_GRACE_MS);
  const { handler, gate } = parts;
  const started = Date.now();
  gate.startDraining();
  // No new takeovers here: what this replica would recover, another one will.
  const schedules = Promise.all([parts.recovery?.stop(), parts.retention?.stop()]);
  const runner = handler.runner;
  const finished = await within(
    schedules.then(() => runner.drain()),
    graceMs,
  );
  if (!finished) await giveUp(handler, Math.max(0, SHUTDOWN_MARGIN_MS - (Date.now() - started - graceMs)));
  await gate.end(SHUTDOWN_MARGIN_MS);
  // Bounded too: a store that does not answer must not keep the process.
  if (!(await within(handler.close(), SHUTDOWN_MARGIN_MS)))
    logSafely(handler.logger, 'warn', 'the store did not close within the shutdown margin', {});
}

/** Gives up the turns still running and shortens their leases, fenced, so another replica takes them at once. */
async function giveUp(handler: A2ARequestHandler, budgetMs: number): Promise<void> {
  const given = handler.runner.abandon();
  logSafely(handler.logger, 'warn', 'shutdown grace over: turns still running are left to another replica', {
    count: given.length,
  });
  const store = handler.options.store;
  const cut = Promise.all(
    given.map(({ scope, taskId, fence }) =>
      store
        .renewLease(scope, taskId, fence, handler.leases.grant(fence).owner, RELEASED_LEASE_MS)
        .catch((err: unknown) =>
          logSafely(
            handler.logger,
            'warn',
            'could not shorten the lease of a given-up turn; it lapses later',
            {
              taskId,
              ...errorFields(err),
            },
          ),
        ),
    ),
  );
  await within(cut, Math.max(budgetMs, 200));
}
