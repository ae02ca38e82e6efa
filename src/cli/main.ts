#!/usr/bin/env node
/**
 * The `a2a-once` command. Each subcommand lives in `commands/<name>.ts` and exports
 * `run(args, io): Promise<number>` (the exit code); they are loaded on demand so `a2a-once send` does not pay
 * for the server's imports.
 */
import type { CliIO } from './io.js';
import { processIO } from './io.js';

/** Subcommands and a one-line summary of each. */
export const COMMANDS: Record<string, string> = {
  serve: 'serve an agent over JSON-RPC and HTTP+JSON',
  demo: 'run the duplicate-safety demo on the embedded store',
  send: 'send a message to an agent',
  get: 'get a task',
  tasks: 'list tasks',
  cancel: 'cancel a task',
  card: "print an agent's card",
  migrate: 'apply store migrations',
  sweep: 'purge expired tasks and keys from a store',
};

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
  if (!Object.hasOwn(COMMANDS, name)) {
    io.err(`a2a-once: unknown command '${name}'`);
    usage(io);
    return 2;
  }
  const mod = (await import(`./commands/${name}.js`)) as {
    run: (args: string[], io: CliIO) => Promise<number>;
  };
  return mod.run(rest, io);
}

// Run when executed directly (the `bin`), not when imported by tests.
const invokedPath = process.argv[1] ?? '';
if (
  invokedPath.endsWith('/cli/main.js') ||
  invokedPath.endsWith('/bin/a2a-once') ||
  invokedPath.endsWith('a2a-once')
) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`a2a-once: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exitCode = 1;
    },
  );
}
