/**
 * `a2a-once/otel`: OpenTelemetry for a2a-once servers and clients (ADR 0091). Needs `@opentelemetry/api`
 * installed (an optional peer dependency); no SDK is forced on you: register the one you use. Spans through
 * `openTelemetry()`, metrics through `openTelemetryMetrics()` (ADR 0094).
 */
export {
  openTelemetry,
  type OpenTelemetryOptions,
  type PropagatorLike,
  type TracerProviderLike,
} from './open-telemetry.js';
export {
  openTelemetryMetrics,
  type MeterProviderLike,
  type OpenTelemetryMetricsOptions,
} from './open-telemetry-metrics.js';
export type { Telemetry, TelemetrySpan, TraceCarrier } from '../telemetry/telemetry.js';
export type { ServerMetrics } from '../server/observability/metrics.js';
export {
  METRIC,
  OUTCOME_ATTR,
  type MetricDefinition,
  type MetricKind,
} from '../server/observability/metric-names.js';
export { ATTR, SPAN } from '../telemetry/attributes.js';
