/** The contract suite against SQLite: a temporary database file per test, so peers open the same database. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { ManualClock } from '../../src/store/clock.js';
import { SqliteTaskStore } from '../../src/store/sqlite/index.js';
import type { TaskStore } from '../../src/store/task-store.js';
import BetterSqlite3 from 'better-sqlite3';
import { describeTaskStoreContract } from './contract.js';
import { DriverFaults, faultyDatabase } from './fixtures/driver-faults.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-sqlite-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeTaskStoreContract('sqlite', async () => {
  const clock = new ManualClock();
  const path = join(dir, `contract-${++n}.db`);
  // The store's own connection goes through the lost-answer faults (idle unless a test arms them).
  const faults = new DriverFaults();
  const db = new BetterSqlite3(path);
  const store = new SqliteTaskStore({ database: faultyDatabase(db, faults), clock, pollIntervalMs: 10 });
  await store.migrate();
  const peers: TaskStore[] = [];
  return {
    store,
    clock,
    faults,
    openPeer: () => {
      const peer = new SqliteTaskStore({ path, clock, pollIntervalMs: 10 });
      peers.push(peer);
      return Promise.resolve(peer);
    },
    cleanup: async () => {
      for (const p of peers) await p.close();
      await store.close();
      db.close();
    },
  };
});
