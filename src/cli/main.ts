/**
 * The `a2a-once` command. Each subcommand lives in `commands/<name>.ts` and exports
 * `run(args, io): Promise<number>` (the exit code), parsing its own options with commander (`program.ts`); they
 * are loaded on demand so `a2a-once send` does not pay for the server's imports. The top level answers
 * `--help`, `--version` and unknown commands itself.
 */
import type { CliIO } from './io.js';
import { processIO } from './io.js';
import { CommanderError } from 'commander';
import { rootProgram, usageFailure } from './program.js';
import { packageVersion } from './version.js';

/** A subcommand module. */
interface Command {
  run(args: string[], io: CliIO): Promise<number>;
}

/** Subcommands: a one-line summary and a loader (imported on demand). */
const REGISTRY: Record<string, { summary: string; load: () => Promise<Command> }> = {
  serve: {
    summary: 'serve a built-in agent over JSON-RPC and HTTP+JSON',
    load: () => import('./commands/serve.js'),
  },
  demo: {
    summary: 'run a three-level delegation tree twice: naive retries against a2a-once',
    load: () => import('./commands/demo.js'),
  },
  send: { summary: 'send a message to an agent, once', load: () => import('./commands/send.js') },
  get: { summary: 'get a task', load: () => import('./commands/get.js') },
  tasks: { summary: 'list tasks', load: () => import('./commands/tasks.js') },
  cancel: { summary: 'cancel a task', load: () => import('./commands/cancel.js') },
  card: { summary: "print an agent's card", load: () => import('./commands/card.js') },
  migrate: { summary: 'apply store migrations', load: () => import('./commands/migrate.js') },
  sweep: { summary: 'purge expired tasks and keys from a store', load: () => import('./commands/sweep.js') },
};

/** Subcommands and a one-line summary of each. */
export const COMMANDS: Record<string, string> = Object.fromEntries(
  Object.entries(REGISTRY).map(([name, c]) => [name, c.summary]),
);

/** The top level: `--help` lists the commands, `--version` prints the package's version. */
function topLevel(io: CliIO) {
  const program = rootProgram(io)
    .usage('<command> [options]')
    .description('A2A v1.0 agents and clients in which every send runs once.')
    .version(packageVersion(), '-v, --version', 'print the version')
    .addHelpText('after', '\nRun a2a-once <command> --help for the options of a command.');
  // Listed for --help only: a known command never reaches this parser (main dispatches it first).
  for (const [name, summary] of Object.entries(COMMANDS)) program.command(name).description(summary);
  return program;
}

/** Runs the CLI with the given arguments (without `node` and the script path). */
export async function main(argv: string[], io: CliIO = processIO): Promise<number> {
  const [name, ...rest] = argv;
  // `a2a-once help send` is `a2a-once send --help`.
  if (name === 'help' && rest[0] !== undefined && Object.hasOwn(REGISTRY, rest[0]))
    return main([rest[0], '--help'], io);
  if (name !== undefined && Object.hasOwn(REGISTRY, name))
    return (await REGISTRY[name]!.load()).run(rest, io);
  const program = topLevel(io);
  if (name === undefined) {
    // No command: the whole help, on stderr, as a usage error.
    program.outputHelp({ error: true });
    return 2;
  }
  try {
    // Only --help, --version, `help` and mistakes get here; none of them runs an action.
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    if (err.exitCode === 0) return 0;
    usageFailure(program, err, io);
    if (err.code === 'commander.unknownCommand') io.err(`commands: ${Object.keys(COMMANDS).join(', ')}`);
    return 2;
  }
}
