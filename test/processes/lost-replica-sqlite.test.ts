/**
 * Three `a2a-once serve` processes on one SQLite file: a replica lost mid-task (SIGKILL, SIGSTOP) has its task
 * recovered by one of the others, which completes it once (docs/semantics.md §4, ADR 0037).
 */
import { join } from 'node:path';
import { describe } from 'vitest';
import { lostReplicaScenarios } from './lost-replica-scenarios.js';
import { cliBuilt } from './serve-process.js';

describe.skipIf(!cliBuilt)('a lost replica on one SQLite file', () => {
  lostReplicaScenarios(
    (dir) => `sqlite:${join(dir, 'shared.db')}`,
    () => Promise.resolve(),
  );
});
