/**
 * Real stores for server-level tests: every behaviour that touches storage is checked on memory, SQLite (a
 * temporary file) and PostgreSQL (a fresh schema on the server at 127.0.0.1:5432, or PGlite where none
 * answers; see test/store-contract/pg-backend.ts). Each store is driven by the ManualClock it is given.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ManualClock } from '../../../src/store/clock.js';
import { MemoryTaskStore } from '../../../src/store/memory/memory-task-store.js';
import { PostgresTaskStore, type PgPoolLike } from '../../../src/store/postgres/index.js';
import { SqliteTaskStore } from '../../../src/store/sqlite/index.js';
import type { TaskStore } from '../../../src/store/task-store.js';
import { freshSchema, pgBackend, type PgBackend } from '../../store-contract/pg-backend.js';

/** The three backends. */
export type StoreKind = 'memory' | 'sqlite' | 'postgres';
export const STORE_KINDS: readonly StoreKind[] = ['memory', 'sqlite', 'postgres'];

/** One open store and how to get rid of it. */
export interface OpenedStore {
  readonly store: TaskStore;
  /**
   * Another store on the same database through its own connection (its own pool on PostgreSQL), as a second
   * server process sharing the store would have; absent for memory, which no two processes can share.
   */
  readonly openPeer?: () => Promise<TaskStore>;
  /** Closes the store and its peers and drops what they created (file, schema). Idempotent. */
  cleanup(): Promise<void>;
}

let pg: Promise<{ backend: PgBackend; pool: PgPoolLike; peerPool: PgPoolLike }> | undefined;
let dir: string | undefined;
let files = 0;

/** Opens a fresh, empty, migrated store of `kind` on `clock`. */
export async function openStore(kind: StoreKind, clock: ManualClock): Promise<OpenedStore> {
  if (kind === 'memory') {
    const store = new MemoryTaskStore({ clock });
    return { store, cleanup: () => Promise.resolve() };
  }
  if (kind === 'sqlite') {
    dir ??= mkdtempSync(join(tmpdir(), 'a2a-once-server-'));
    const path = join(dir, `s-${++files}.db`);
    const store = new SqliteTaskStore({ path, clock, pollIntervalMs: 10 });
    await store.migrate();
    const peers: TaskStore[] = [];
    return {
      store,
      openPeer: () => {
        const peer = new SqliteTaskStore({ path, clock, pollIntervalMs: 10 });
        peers.push(peer);
        return Promise.resolve(peer);
      },
      cleanup: once(async () => {
        for (const p of peers) await p.close();
        await store.close();
      }),
    };
  }
  pg ??= pgBackend().then((backend) => ({ backend, pool: backend.pool(), peerPool: backend.pool() }));
  const { pool, peerPool } = await pg;
  const schema = freshSchema();
  const store = new PostgresTaskStore({ pool, schema, clock, pollIntervalMs: 10 });
  await store.migrate();
  const peers: TaskStore[] = [];
  return {
    store,
    openPeer: () => {
      const peer = new PostgresTaskStore({ pool: peerPool, schema, clock, pollIntervalMs: 10 });
      peers.push(peer);
      return Promise.resolve(peer);
    },
    cleanup: once(async () => {
      for (const p of peers) await p.close();
      await store.close();
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }),
  };
}

/** Ends the shared PostgreSQL pool and removes the SQLite files; call from `afterAll`. */
export async function closeStores(): Promise<void> {
  if (pg) await (await pg).backend.end();
  pg = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
}

function once(f: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  return () => (done ??= f());
}
