/**
 * Where the client reports what it cannot hand back to a caller (ADR 0068): an outbox that failed to settle an
 * answered send (the caller gets the answer, so the failure would otherwise go unseen), an answer it could not
 * read. A small structural interface, so any logger (pino, winston, console) fits. Fields never carry an
 * idempotency key in clear, only its `keyHash` (docs/semantics.md §1).
 */

/** Fields of a log line: `keyHash`, `messageId`, `target`, `error`, … */
export type LogFields = Readonly<Record<string, unknown>>;

/** What the client logs to. */
export interface ClientLogger {
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** One field's value on one line: an error by its name and message, whitespace folded. */
function showValue(value: unknown): string {
  const text =
    value instanceof Error
      ? `${value.name}: ${value.message}`
      : typeof value === 'string'
        ? value
        : JSON.stringify(value);
  return (text ?? String(value)).replace(/\s+/g, ' ');
}

/** The line the default logger writes: the message, then `name=value` for each field. */
export function logLine(level: 'warn' | 'error', message: string, fields: LogFields = {}): string {
  const shown = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${showValue(v)}`);
  return [`a2a-once client ${level}: ${message.replace(/\s+/g, ' ')}`, ...shown].join(' ');
}

/** The logger of a client given none: one line per event on stderr, through `console.warn`. */
export const CONSOLE_LOGGER: ClientLogger = {
  warn: (message, fields) => console.warn(logLine('warn', message, fields)),
  error: (message, fields) => console.warn(logLine('error', message, fields)),
};
