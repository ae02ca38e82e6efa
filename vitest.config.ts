import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Store suites share one PostgreSQL server; files run in parallel but each uses its own schema.
    pool: 'forks',
  },
});
