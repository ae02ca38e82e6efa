/**
 * A small argument parser shared by the subcommands: `--name value`, `--name=value`, boolean `--flag`, and
 * positionals. Unknown options are an error, so a typo never silently changes what a command does.
 */

/** What a command accepts. */
export interface ArgSpec {
  /** Options that take a value. */
  values?: readonly string[];
  /** Options that are on/off. */
  flags?: readonly string[];
}

/** Parsed arguments. */
export interface ParsedArgs {
  positionals: string[];
  values: Map<string, string>;
  flags: Set<string>;
}

import type { CliIO } from './io.js';

/** Thrown for bad command lines; the CLI prints the message and exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Parses `args` against `spec`. */
export function parseArgs(args: readonly string[], spec: ArgSpec): ParsedArgs {
  const values = new Set(spec.values ?? []);
  const flags = new Set(spec.flags ?? []);
  const out: ParsedArgs = { positionals: [], values: new Map(), flags: new Set() };
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!a.startsWith('--') || a === '--') {
      out.positionals.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq === -1 ? a.slice(2) : a.slice(2, eq);
    if (values.has(name)) {
      const v = eq === -1 ? args[++i] : a.slice(eq + 1);
      if (v === undefined) throw new UsageError(`--${name} needs a value`);
      out.values.set(name, v);
    } else if (flags.has(name)) {
      if (eq !== -1) throw new UsageError(`--${name} takes no value`);
      out.flags.add(name);
    } else {
      throw new UsageError(`unknown option --${name}`);
    }
  }
  return out;
}

/** Parses a duration like `90s`, `15m`, `24h`, `7d` or `250ms` into milliseconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(text.trim());
  if (!m) throw new UsageError(`not a duration: '${text}' (use e.g. 90s, 15m, 24h, 7d)`);
  const n = Number(m[1]);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[
    m[2] as 'ms' | 's' | 'm' | 'h' | 'd'
  ];
  return Math.round(n * unit);
}

/** Prints a usage error (`a2a-once CMD: message`, then the usage text) and returns exit code 2; rethrows others. */
export function usageFailure(command: string, usage: string, err: unknown, io: CliIO): number {
  if (!(err instanceof UsageError)) throw err;
  io.err(`a2a-once ${command}: ${err.message}`);
  io.err(usage);
  return 2;
}
