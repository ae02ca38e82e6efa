/**
 * The server's logging seam. Fields are structured; an idempotency key never appears in them, only its
 * `keyHash` (SEMANTICS §1: a key is a handle to a task).
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

/** Discards everything (the default: a library does not write to the console unasked). */
export const silentLogger: ServerLogger = {
  enabled: () => false,
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

/** One JSON line per entry on stderr, at `warn` and above unless `verbose`. */
export function jsonLineLogger(verbose = false): ServerLogger {
  const write = (level: string, message: string, fields?: LogFields) =>
    void process.stderr.write(JSON.stringify({ level, message, ...fields }) + '\n');
  return {
    enabled: (level) => verbose || level === 'warn' || level === 'error',
    debug: (m, f) => (verbose ? write('debug', m, f) : undefined),
    info: (m, f) => (verbose ? write('info', m, f) : undefined),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}
