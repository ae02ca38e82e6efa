/** What push delivery traces with (ADR 0092, ADR 0093); a type of its own so that public types need no node:http. */
import type { Scope } from '../../store/scope.js';
import type { Telemetry, TraceCarrier } from '../../telemetry/telemetry.js';

/** The server's telemetry, and where the trace each task was created in is kept. */
export interface PushTracing {
  readonly telemetry: Telemetry;
  /** The trace context of the send that created a task, when known (in memory, else in the store). */
  readonly traceOf: (scope: Scope, taskId: string) => Promise<TraceCarrier | undefined>;
}
