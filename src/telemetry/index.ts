/** The telemetry seam: the interface `a2a-once/otel` implements, and the names it writes (ADR 0091, 0092). */
export type {
  HeaderReader,
  SpanAttributes,
  SpanAttributeValue,
  SpanStart,
  Telemetry,
  TelemetrySpan,
  TraceCarrier,
} from './telemetry.js';
export { ATTR, SPAN } from './attributes.js';
