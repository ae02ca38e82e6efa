/** The contract suite against SQLite: a temporary database file per test, so peers open the same database. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { ManualClock } from '../../src/store/clock.js';
import { SqliteTaskStore } from '../../src/store/sqlite/index.js';
import type { TaskStore } from '../../src/store/task-store.js';
import { describeTaskStoreContract } from './contract.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-sqlite-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeTaskStoreContract('sqlite', async () => {
  const clock = new ManualClock();
  const path = join(dir, `contract-${++n}.db`);
  const store = new SqliteTaskStore({ path, clock, pollIntervalMs: 10 });
  await store.migrate();
  const peers: TaskStore[] = [];
  return {
    store,
    clock,
    openPeer: () => {
      const peer = new SqliteTaskStore({ path, clock, pollIntervalMs: 10 });
      peers.push(peer);
      return Promise.resolve(peer);
    },
    cleanup: async () => {
      for (const p of peers) await p.close();
      await store.close();
    },
  };
});
