/**
 * How every `a2a-once` command parses its command line and ends: commander (ADR 0043) with its output sent to the
 * command's `CliIO` (so tests capture it) and its exits turned into exit codes instead of `process.exit`:
 *
 * - 0: done, and for `--help` and `--version`;
 * - 2: a usage error (an unknown option, a missing argument, a bad value): one line saying what is wrong, then
 *   the usage line;
 * - 1: a runtime error: one line, `a2a-once CMD: message` (the stack too with A2A_ONCE_DEBUG=1);
 * - 3: a send whose outcome is unknown (client commands, `client-command.ts`).
 */
import { Command, CommanderError, Option } from 'commander';
import { UsageError } from './args.js';
import type { CliIO } from './io.js';

/** Commander writes whole blocks; a CliIO takes lines. */
function lines(text: string): string[] {
  return text.replace(/\n$/, '').split('\n');
}

/** The top-level program, its output and exits routed as above. Subcommands made with `.command()` inherit it. */
export function rootProgram(io: CliIO): Command {
  return (
    new Command('a2a-once')
      .configureOutput({
        writeOut: (s) => lines(s).forEach((l) => io.out(l)),
        writeErr: (s) => lines(s).forEach((l) => io.err(l)),
        // Errors are printed by `usageFailure`, in one format for commander's errors and ours.
        outputError: () => undefined,
      })
      .exitOverride()
      .helpOption('-h, --help', 'show this help')
      // One width on a terminal and in a pipe, wide enough that most options and their defaults fit on a line.
      .configureHelp({ helpWidth: 110 })
  );
}

/** A subcommand `a2a-once NAME`: its usage line and help carry the `a2a-once` prefix. */
export function subcommand(io: CliIO, name: string, summary: string): Command {
  return rootProgram(io).command(name).description(summary);
}

/**
 * Parses `args` for `command` and runs `body` if they are valid; resolves with the exit code. `body` may throw
 * `UsageError` for a bad value it found (exit 2); anything else it throws is a runtime error (exit 1).
 */
export async function runCommand(
  command: Command,
  args: readonly string[],
  io: CliIO,
  body: () => Promise<number>,
): Promise<number> {
  let code = 0;
  command.action(async () => {
    code = await body();
  });
  try {
    await (command.parent ?? command).parseAsync(command.parent ? [command.name(), ...args] : [...args], {
      from: 'user',
    });
    return code;
  } catch (err) {
    if (err instanceof CommanderError && err.exitCode === 0) return 0; // --help, --version
    if (err instanceof CommanderError || err instanceof UsageError) return usageFailure(command, err, io);
    return runtimeFailure(commandPath(command), err, io);
  }
}

/**
 * An option whose value stays text, with its default shown by `--help` as a user would type it (`24h`, not
 * `"24h"`); commands check the value, default or typed, themselves (`args.ts`).
 */
export function textOption(flags: string, description: string, fallback: string): Option {
  return new Option(flags, description).default(fallback, fallback);
}

/** `a2a-once serve`, say. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** The usage line, with where to find the rest. */
export function usageLine(command: Command): string {
  return `usage: ${commandPath(command)} ${command.usage()}   (--help lists every option)`;
}

/** Prints `a2a-once CMD: what is wrong`, then the usage line; returns 2. */
export function usageFailure(command: Command, err: Error, io: CliIO): number {
  // Commander's messages start with "error: " and may end with "(Did you mean --json?)" on a second line.
  const [first = '', ...more] = err.message.replace(/^error: /, '').split('\n');
  io.err(`${commandPath(command)}: ${first}`);
  for (const line of more) if (line.trim() !== '') io.err(line);
  io.err(usageLine(command));
  return 2;
}

/** Whether to print stacks: `A2A_ONCE_DEBUG=1` (or any value but empty and 0). */
export function debugEnabled(): boolean {
  const v = process.env.A2A_ONCE_DEBUG;
  return v !== undefined && v !== '' && v !== '0';
}

/** Prints `PREFIX: message` (and the stack when debugging); returns 1. */
export function runtimeFailure(prefix: string, err: unknown, io: CliIO): number {
  io.err(`${prefix}: ${err instanceof Error ? err.message : String(err)}`);
  if (debugEnabled() && err instanceof Error && err.stack !== undefined) io.err(err.stack);
  return 1;
}
