/**
 * The `a2a-once` command. Each subcommand lives in `commands/<name>.ts` and exports
 * `run(args, io): Promise<number>` (the exit code); they are loaded on demand so `a2a-once send` does not pay
 * for the server's imports.
 */
import type { CliIO } from './io.js';
import { processIO } from './io.js';

/** A subcommand module. */
interface Command {
  run(args: string[], io: CliIO): Promise<number>;
}

/** Subcommands: a one-line summary and a loader (imported on demand). */
const REGISTRY: Record<string, { summary: string; load: () => Promise<Command> }> = {
  serve: { summary: 'serve an agent over JSON-RPC and HTTP+JSON', load: () => import('./commands/serve.js') },
  demo: {
    summary: 'run the duplicate-safety demo on the embedded store',
    load: () => import('./commands/demo.js'),
  },
  send: { summary: 'send a message to an agent', load: () => import('./commands/send.js') },
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

function usage(io: CliIO): void {
  io.out('usage: a2a-once <command> [options]\n\ncommands:');
  for (const [name, summary] of Object.entries(COMMANDS)) io.out(`  ${name.padEnd(8)} ${summary}`);
}

/** Runs the CLI with the given arguments (without `node` and the script path). */
export async function main(argv: string[], io: CliIO = processIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    usage(io);
    return name === undefined ? 2 : 0;
  }
  const command = Object.hasOwn(REGISTRY, name) ? REGISTRY[name] : undefined;
  if (!command) {
    io.err(`a2a-once: unknown command '${name}'`);
    usage(io);
    return 2;
  }
  return (await command.load()).run(rest, io);
}
