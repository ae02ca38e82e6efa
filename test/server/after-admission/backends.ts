/**
 * The real stores the after-admission tests run on: memory (whose blocking waits use the `nextRecord` fast path)
 * and SQLite in a temporary file (whose waits poll `watch`), both on the test's ManualClock.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type { ManualClock } from '../../../src/store/clock.js';
import { MemoryTaskStore } from '../../../src/store/memory/memory-task-store.js';
import { SqliteTaskStore } from '../../../src/store/sqlite/index.js';
import type { TaskStore } from '../../../src/store/task-store.js';

/** A way to open a fresh real store. */
export interface Backend {
  readonly name: 'memory' | 'sqlite';
  open(clock: ManualClock): Promise<TaskStore>;
}

// One directory per test file that imports this module, removed after the file's tests.
const dir = mkdtempSync(join(tmpdir(), 'a2a-once-after-admission-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

export const MEMORY: Backend = {
  name: 'memory',
  open: (clock) => Promise.resolve(new MemoryTaskStore({ clock })),
};

export const SQLITE: Backend = {
  name: 'sqlite',
  async open(clock) {
    const store = new SqliteTaskStore({ path: join(dir, `store-${++n}.db`), clock, pollIntervalMs: 10 });
    await store.migrate();
    return store;
  },
};

export const BACKENDS: readonly Backend[] = [MEMORY, SQLITE];
