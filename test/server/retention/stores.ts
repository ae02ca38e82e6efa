/**
 * The three stores for the retention-schedule tests, each with a way to open a second store on the same
 * database (a replica). PostgreSQL uses the real server (PGlite where none answers, see pg-backend.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../src/store/clock.js';
import { MemoryTaskStore } from '../../../src/store/memory/memory-task-store.js';
import { PostgresTaskStore } from '../../../src/store/postgres/index.js';
import { SqliteTaskStore } from '../../../src/store/sqlite/index.js';
import type { TaskStore } from '../../../src/store/task-store.js';
import { freshSchema, pgBackend } from '../../store-contract/pg-backend.js';

/** A store on a fresh database, and replicas onto the same one. */
export interface StoreUnderTest {
  readonly store: TaskStore;
  readonly clock: ManualClock;
  /** Another store on the same database, or undefined for a one-process store. */
  replica(): Promise<TaskStore | undefined>;
  cleanup(): Promise<void>;
}

/** Store kinds, by name. */
export const STORE_KINDS = ['memory', 'sqlite', 'postgres'] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

/** Opens a fresh store of `kind`. */
export async function openStoreUnderTest(kind: StoreKind): Promise<StoreUnderTest> {
  const clock = new ManualClock();
  if (kind === 'memory') {
    const store = new MemoryTaskStore({ clock });
    return { store, clock, replica: () => Promise.resolve(undefined), cleanup: () => store.close() };
  }
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'a2a-once-retention-'));
    const path = join(dir, 'store.db');
    return withReplicas(
      clock,
      () => new SqliteTaskStore({ path, clock, pollIntervalMs: 10 }),
      () => {
        rmSync(dir, { recursive: true, force: true });
        return Promise.resolve();
      },
    );
  }
  const backend = await pgBackend();
  const schema = freshSchema();
  return withReplicas(
    clock,
    () => new PostgresTaskStore({ pool: backend.pool(), schema, clock, pollIntervalMs: 10 }),
    async () => {
      await backend.pool().query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await backend.end();
    },
  );
}

/** A first store and replicas on one database, each migrated; cleanup closes them all, then `drop`. */
async function withReplicas(
  clock: ManualClock,
  make: () => TaskStore & { migrate(): Promise<unknown> },
  drop: () => Promise<void>,
): Promise<StoreUnderTest> {
  const opened: TaskStore[] = [];
  const open = async () => {
    const s = make();
    await s.migrate();
    opened.push(s);
    return s;
  };
  const store = await open();
  return {
    store,
    clock,
    replica: open,
    cleanup: async () => {
      for (const s of opened) await s.close();
      await drop();
    },
  };
}
