/**
 * The contract suite against PostgreSQL: a fresh schema per test (dropped after), a second pool for the peer so
 * races use separate connections. Falls back to PGlite where no server answers (see pg-backend.ts).
 */
import { afterAll, beforeAll } from 'vitest';
import { ManualClock } from '../../src/store/clock.js';
import { PostgresTaskStore, type PgPoolLike } from '../../src/store/postgres/index.js';
import { describeTaskStoreContract } from './contract.js';
import { freshSchema, pgBackend, type PgBackend } from './pg-backend.js';

let backend: PgBackend;
let main: PgPoolLike;
let second: PgPoolLike;

beforeAll(async () => {
  backend = await pgBackend();
  main = backend.pool();
  second = backend.pool();
});
afterAll(async () => {
  await backend.end();
});

describeTaskStoreContract('postgres', async () => {
  const clock = new ManualClock();
  const schema = freshSchema();
  const store = new PostgresTaskStore({ pool: main, schema, clock, pollIntervalMs: 10 });
  await store.migrate();
  const peers: PostgresTaskStore[] = [];
  return {
    store,
    clock,
    openPeer: () => {
      const peer = new PostgresTaskStore({ pool: second, schema, clock, pollIntervalMs: 10 });
      peers.push(peer);
      return Promise.resolve(peer);
    },
    cleanup: async () => {
      for (const p of peers) await p.close();
      await store.close();
      await main.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    },
  };
});
