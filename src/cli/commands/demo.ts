/**
 * `a2a-once demo`: what one lost answer at the top of a three-level delegation tree does to the side effects at its
 * leaves, with plain sends and with a2a-once. Seven real `serve` processes on loopback and the embedded SQLite
 * store, so it needs nothing but a build; `--crash` also kills a leaf's server mid-task and restarts it. The run
 * itself is `demo/runner.ts`; this file parses the options and turns Ctrl-C into a clean stop.
 */
import { runDemo } from '../demo/runner.js';
import { checkTracePackages, TracePackagesMissing } from '../../otel/span-file.js';
import type { CliIO } from '../io.js';
import { runCommand, subcommand } from '../program.js';

interface DemoFlags {
  crash?: boolean;
  live: boolean;
  trace?: boolean;
}

/** Exit code of a demo stopped by Ctrl-C (128 + SIGINT), as a shell reports it. */
const INTERRUPTED = 130;

/** Runs `a2a-once demo [--crash] [--trace] [--no-live]`. */
export function run(args: string[], io: CliIO): Promise<number> {
  const command = subcommand(
    io,
    'demo',
    'show what lost answers do in a delegation tree: side effects at the leaves, without keys and with a2a-once',
  )
    .option('--crash', 'also kill a leaf server with SIGKILL mid-task, and restart it on its SQLite file')
    .option(
      '--trace',
      'trace the a2a-once run (OpenTelemetry, every process) and print the tree of its trace at the end',
    )
    .option('--no-live', 'print plain lines instead of redrawing the tree in place on a terminal')
    .addHelpText(
      'after',
      '\nIt starts 7 `a2a-once serve` processes on 127.0.0.1 (store: SQLite in a temporary directory), runs the tree\n' +
        'twice and ends with a table of what it counted. Every process and the directory are removed at the end,\n' +
        'on an error, and on Ctrl+C.',
    );
  return runCommand(command, args, io, () => demo(command.opts<DemoFlags>(), io));
}

/** Exit code when `--trace` cannot load the OpenTelemetry SDK (a usage problem: install it). */
const TRACE_UNAVAILABLE = 2;

async function demo(flags: DemoFlags, io: CliIO): Promise<number> {
  if (flags.trace === true) {
    // Before anything starts: the packages are devDependencies, so an installed a2a-once may lack them.
    try {
      await checkTracePackages();
    } catch (err) {
      if (!(err instanceof TracePackagesMissing)) throw err;
      io.err(`a2a-once demo: ${err.message}`);
      return TRACE_UNAVAILABLE;
    }
  }
  const interrupt = new AbortController();
  const onSignal = () => interrupt.abort(new Error('interrupted'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const result = await runDemo(io, {
      crash: flags.crash === true,
      live: flags.live,
      trace: flags.trace === true,
      signal: interrupt.signal,
    });
    return result.code;
  } catch (err) {
    if (!interrupt.signal.aborted) throw err;
    io.err('a2a-once demo: stopped; every process it started is gone and its directory removed');
    return INTERRUPTED;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
