/**
 * What the SERVER span of a send says about its admission (ADR 0092): the task, its fence, whether the agent runs
 * for it, the key's short hash (never the key), and for a retry or a continuation a link to the span of the send
 * that created the task. The outcome itself is written by the binding, which also sees the refusals.
 */
import { keyHash, keyOf } from '../../idempotency/index.js';
import { ATTR } from '../../telemetry/attributes.js';
import type { Telemetry } from '../../telemetry/telemetry.js';
import type { Admission } from '../admission/admission.js';
import type { TaskTraces } from './task-traces.js';

/**
 * Describes an admission on the active span, and stores or links the trace of the task's creation (a replay
 * of a task another replica created waits for one store read, only with telemetry).
 */
export async function traceAdmission(
  telemetry: Telemetry,
  traces: TaskTraces,
  admission: Admission,
): Promise<void> {
  const span = telemetry.activeSpan();
  // Nobody records it: no attributes to compute (a key hash is a SHA-256), no trace context to keep or find.
  if (span === undefined || !span.recording) return;
  const task = admission.record.task;
  span.setAttribute(ATTR.taskId, task.id);
  if (task.contextId !== undefined) span.setAttribute(ATTR.contextId, task.contextId);
  span.setAttribute(ATTR.fence, admission.record.fence);
  span.setAttribute(ATTR.agentRan, admission.kind !== 'replay');
  const key = keyOf(admission.message);
  if (key !== undefined) span.setAttribute(ATTR.keyHash, keyHash(key));
  if (admission.kind === 'created') {
    traces.created(admission.scope, task.id, admission.record.fence, span.carrier());
    return;
  }
  const first = await traces.find(admission.scope, task.id);
  if (first !== undefined) span.link(first);
}
