#!/usr/bin/env node
/**
 * The executable behind the `a2a-once` bin: runs `main` with the process arguments and sets the exit code.
 * Kept apart from `main.ts` so that tests can import the dispatcher without running it.
 */
import { main } from './main.js';

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`a2a-once: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
