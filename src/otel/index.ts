/**
 * `a2a-once/otel`: OpenTelemetry for a2a-once servers and clients (ADR 0091). Needs `@opentelemetry/api`
 * installed (an optional peer dependency); no SDK is forced on you: register the one you use.
 */
export {
  openTelemetry,
  type OpenTelemetryOptions,
  type PropagatorLike,
  type TracerProviderLike,
} from './open-telemetry.js';
export type { Telemetry, TelemetrySpan, TraceCarrier } from '../telemetry/telemetry.js';
export { ATTR, SPAN } from '../telemetry/attributes.js';
