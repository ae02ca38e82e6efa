#!/usr/bin/env node
/**
 * The executable behind the `a2a-once` bin: runs `main` with the process arguments and sets the exit code.
 * Kept apart from `main.ts` so that tests can import the dispatcher without running it. An error no command
 * caught is still one line (its stack with A2A_ONCE_DEBUG=1) and exit 1.
 */
import { main } from './main.js';
import { processIO } from './io.js';
import { runtimeFailure } from './program.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.exitCode = runtimeFailure('a2a-once', err, processIO);
  },
);
