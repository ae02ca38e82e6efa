/**
 * Chaos on SQLite, a file per scenario: `serve` processes killed (SIGKILL) at exact points and frozen (SIGSTOP) past their
 * lease, then a keyed retry; every send runs once and its effect happens once (ADR 0041, docs/semantics.md §4).
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'vitest';
import { cliBuilt } from '../processes/serve-process.js';
import { chaosScenarios } from './chaos-scenarios.js';

describe.skipIf(!cliBuilt)('chaos on one SQLite file', () => {
  let n = 0;
  chaosScenarios((dir) => {
    const file = join(dir, `chaos-${++n}.db`);
    return {
      url: `sqlite:${file}`,
      remove: () => {
        for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
        return Promise.resolve();
      },
    };
  });
});
