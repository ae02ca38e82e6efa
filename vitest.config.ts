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
    // modules afresh (fresh-modules.ts), so module-level state never leaks from one file into the next (ADR 0114).
    isolate: false,
    setupFiles: ['test/helpers/fresh-modules.ts'],
    // Four files at a time, even on two cores: most of the suite's time is spent waiting on leases, timers and child
    // processes, not computing. Measured on two cores (test/server and test/processes): two workers 226 s, four
    // 118 s, six 143 s. At most four, too: every worker opens PostgreSQL pools and starts server processes, and the
    // server's connections are shared. All four are kept for the whole run (minWorkers): a run that let the pool
    // shrink lost a worker midway ("Terminating worker thread"). See ADR 0114.
    maxWorkers: 4,
    minWorkers: 4,
  },
});
