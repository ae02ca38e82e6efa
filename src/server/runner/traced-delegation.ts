/**
 * A delegation in its span (ADR 0092): `a2a_once.delegation`, active while `ctx.delegate` plans and sends (its
 * steps, the child send and the handle's polls are its children), carrying the child's task id once known and
 * `a2a_once.delegation.outcome` (`completed`, `failed`, `lost`, …) when the handle settles; it ends then.
 */
import type { DelegationHandle } from '../../delegation/index.js';
import { ATTR, SPAN } from '../../telemetry/attributes.js';
import type { Telemetry } from '../../telemetry/telemetry.js';

/** Runs `start` (a `delegate` call) in a delegation span. */
export async function tracedDelegation(
  telemetry: Telemetry,
  name: string | undefined,
  start: () => Promise<DelegationHandle>,
): Promise<DelegationHandle> {
  const span = telemetry.startSpan(SPAN.delegation, {
    attributes: { [ATTR.delegationName]: name },
  });
  let handle: DelegationHandle;
  try {
    handle = await span.run(start);
  } catch (err) {
    span.fail(err instanceof Error ? err.name : typeof err);
    span.end();
    throw err;
  }
  if (handle.taskId !== undefined) span.setAttribute(ATTR.childTaskId, handle.taskId);
  // The outcome never rejects: the span ends when the child settles, is lost, or the handle is detached.
  void handle.outcome().then((outcome) => {
    span.setAttribute(ATTR.delegationOutcome, outcome.status);
    span.end();
  });
  return handle;
}
