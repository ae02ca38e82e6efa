import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Prints once which PostgreSQL the PostgreSQL lane runs on (a real server or PGlite).
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Store suites share one PostgreSQL server; files run in parallel but each uses its own schema.
    pool: 'forks',
    // A worker runs file after file rather than a fresh process per file: starting a process and vitest in it for
    // each of some 260 files cost more CPU than most files' tests. Each file still imports this repository's
    // modules afresh (fresh-modules.ts), so module-level state never leaks from one file into the next.
    isolate: false,
    setupFiles: ['test/helpers/fresh-modules.ts'],
    // At least two files at a time, even on two cores (vitest's default there is one): most of the suite's time is
    // spent waiting on leases, timers and child processes, not computing, so two forks halve the wall time. At most
    // four: every fork opens PostgreSQL pools and starts server processes, and the server's connections are shared.
    maxWorkers: Math.min(4, Math.max(2, availableParallelism())),
  },
});
