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
  },
});
