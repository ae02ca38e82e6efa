/**
 * Option values: parsing and checking the text a user typed, with errors that name the option. Commander
 * (`program.ts`) parses the command line; options stay text there, so `--help` shows each default as a user would
 * type it, and every value, typed or default, is checked here in one place.
 */

/** Thrown for a bad command line; the CLI prints the message and the usage line and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

const UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Parses a duration like `90s`, `15m`, `24h`, `7d` or `250ms` into milliseconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(text.trim());
  if (!m) throw new UsageError(`not a duration: '${text}' (use e.g. 90s, 15m, 24h, 7d)`);
  return Math.round(Number(m[1]) * UNITS[m[2] as keyof typeof UNITS]);
}

/** `--NAME`'s duration, in ms; `min` is the shortest allowed (default 0). */
export function durationOption(name: string, text: string, min = 0): number {
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch (err) {
    throw new UsageError(`--${name}: ${(err as Error).message}`);
  }
  if (ms < min)
    throw new UsageError(
      min === 1 ? `--${name} must be longer than zero` : `--${name} must be at least ${formatDuration(min)}`,
    );
  return ms;
}

/** `--NAME`'s whole number, from `min` to `max`. */
export function integerOption(
  name: string,
  text: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const n = /^\d+$/.test(text.trim()) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    const range =
      max === Number.MAX_SAFE_INTEGER
        ? min === 0
          ? 'a whole number (0 or more)'
          : `a whole number, at least ${min}`
        : `a whole number from ${min} to ${max}`;
    throw new UsageError(`--${name} must be ${range}, not '${text}'`);
  }
  return n;
}

/** `--port`: 0 (any free port) to 65535. */
export function portOption(text: string): number {
  return integerOption('port', text, 0, 65_535);
}

/** `--NAME`'s value, one of `choices`. */
export function choiceOption<T extends string>(name: string, text: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(text))
    throw new UsageError(`--${name} must be one of ${choices.join(', ')}, not '${text}'`);
  return text as T;
}

/** The shortest text for a duration, as `--help` shows defaults: `604800000` → `7d`, `1500` → `1500ms`. */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    if (ms >= UNITS[unit] && ms % UNITS[unit] === 0) return `${ms / UNITS[unit]}${unit}`;
  }
  return `${ms}ms`;
}
