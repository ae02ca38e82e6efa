/**
 * Log lines that name the trace they were written in (ADR 0091): with telemetry, every line written while a
 * span is active gets `trace_id` and `span_id` (the OpenTelemetry log data model's names), so a log collector
 * joins a line to its span. Without telemetry the host's logger is used as it is.
 */
import type { Telemetry } from '../../telemetry/telemetry.js';
import type { LogFields, ServerLogger } from './logger.js';

/** `logger`, adding the active span's ids to each line; `logger` itself when there is no telemetry. */
export function withTraceIds(logger: ServerLogger, telemetry: Telemetry | undefined): ServerLogger {
  if (telemetry === undefined) return logger;
  const fields = (f: LogFields | undefined): LogFields | undefined => {
    const ids = telemetry.activeIds();
    return ids === undefined ? f : { ...f, trace_id: ids.traceId, span_id: ids.spanId };
  };
  const traced: ServerLogger = {
    debug: (m, f) => logger.debug(m, fields(f)),
    info: (m, f) => logger.info(m, fields(f)),
    warn: (m, f) => logger.warn(m, fields(f)),
    error: (m, f) => logger.error(m, fields(f)),
  };
  if (logger.enabled) traced.enabled = (level) => logger.enabled!(level);
  return traced;
}
