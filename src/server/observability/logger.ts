/**
 * The server's logging seam. Fields are structured; an idempotency key never appears in them, only its
 * `keyHash` (docs/semantics.md §1: a key is a handle to a task).
 */

/** Structured log fields. */
export type LogFields = Record<string, string | number | boolean | undefined>;

/** What the server logs through. */
export interface ServerLogger {
  /** Whether `level` is written at all; callers skip building fields (hashing keys) when it is not. */
  enabled?(level: 'debug' | 'info' | 'warn' | 'error'): boolean;
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

/** Discards everything. For hosts that route nothing to the console on purpose; not the default (ADR 0029). */
export const silentLogger: ServerLogger = {
  enabled: () => false,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/**
 * One JSON line per entry on stderr (`{"time","level","message",...fields}`), at `warn` and above unless
 * `verbose`. The default logger of a server (ADR 0029): an unexpected error must never pass unseen, and one
 * line per entry, stack included (escaped), is what log collectors and `grep` both handle. Where there is no
 * `process.stderr` (a worker runtime), the line goes to `console.error`.
 */
export function jsonLineLogger(verbose = false): ServerLogger {
  const stderr = (globalThis as { process?: { stderr?: { write?: (s: string) => unknown } } }).process
    ?.stderr;
  const out =
    typeof stderr?.write === 'function'
      ? (line: string) => void stderr.write!(line + '\n')
      : (line: string) => console.error(line);
  const write = (level: string, message: string, fields?: LogFields) =>
    out(JSON.stringify({ time: new Date().toISOString(), level, message, ...fields }));
  return {
    enabled: (level) => verbose || level === 'warn' || level === 'error',
    debug: (m, f) => (verbose ? write('debug', m, f) : undefined),
    info: (m, f) => (verbose ? write('info', m, f) : undefined),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}
