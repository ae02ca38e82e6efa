/**
 * A delivery attempt in its span (ADR 0092): a CLIENT span per POST, a child of the trace the task was created in
 * when it is known (ADR 0093: in memory or stored with the task), carrying the event's `seq`, the HTTP status and the verdict; the POST's
 * `traceparent` names that span, so a receiver's spans join the task's trace.
 */
import type { StoredEvent } from '../../store/records.js';
import type { PushDelivery } from '../../store/push-delivery.js';
import { ATTR, SPAN } from '../../telemetry/attributes.js';
import type { PushTracing } from './push-tracing.js';
import { attemptDelivery, type AttemptContext, type Verdict } from './delivery-attempt.js';

/** `attemptDelivery` in a span. */
export async function tracedDelivery(
  tracing: PushTracing,
  d: PushDelivery,
  e: StoredEvent,
  ctx: AttemptContext,
): Promise<Verdict> {
  const { telemetry } = tracing;
  const parent = await tracing.traceOf(d.scope, d.taskId);
  const span = telemetry.startSpan(SPAN.push, {
    kind: 'client',
    ...(parent !== undefined ? { parent } : {}),
    attributes: {
      [ATTR.taskId]: d.taskId,
      [ATTR.pushSeq]: e.seq,
      [ATTR.attempt]: d.attempts + 1,
      [ATTR.tenant]: d.scope.tenant === '' ? undefined : d.scope.tenant,
    },
  });
  try {
    const verdict = await span.run(() =>
      attemptDelivery(d, e, {
        ...ctx,
        inject: (headers) => span.run(() => telemetry.inject(headers)),
        onAnswer: (r) => {
          if (r.kind === 'answered') span.setAttribute(ATTR.pushStatus, r.status);
        },
      }),
    );
    span.setAttribute(ATTR.pushOutcome, verdict.kind);
    if (verdict.kind === 'retry' || verdict.kind === 'reject')
      span.fail(verdict.kind === 'retry' ? 'retry' : verdict.reason);
    return verdict;
  } catch (err) {
    span.fail(err instanceof Error ? err.name : typeof err);
    throw err;
  } finally {
    span.end();
  }
}
