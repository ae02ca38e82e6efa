/**
 * Chaos on one SQLite file: `serve` processes killed (SIGKILL) at exact points and frozen (SIGSTOP) past their
 * lease, then a keyed retry; every send runs once and its effect happens once (ADR 0041, docs/semantics.md §4).
 */
import { join } from 'node:path';
import { describe } from 'vitest';
import { cliBuilt } from '../processes/serve-process.js';
import { chaosScenarios } from './chaos-scenarios.js';

describe.skipIf(!cliBuilt)('chaos on one SQLite file', () => {
  chaosScenarios(
    (dir) => `sqlite:${join(dir, 'chaos.db')}`,
    () => Promise.resolve(),
  );
});
