/**
 * The contract suite against PostgreSQL: a fresh schema per test (dropped after), a second pool for the peer so
 * races use separate connections. On the real server the pools send named prepared statements, as the pools
 * `openStore` makes do (`preparedPool`, ADR 0047); other PostgreSQL tests use plain pools. Falls back to PGlite
 * where no server answers (see pg-backend.ts).
 */
import { afterAll, beforeAll } from 'vitest';
import { ManualClock } from '../../src/store/clock.js';
import { PostgresTaskStore, preparedPool, type PgPoolLike } from '../../src/store/postgres/index.js';
import { describeTaskStoreContract } from './contract.js';
import { DriverFaults, faultyPool } from './fixtures/driver-faults.js';
import { freshSchema, pgBackend, type PgBackend } from './pg-backend.js';

let backend: PgBackend;
let main: PgPoolLike;
let second: PgPoolLike;

beforeAll(async () => {
  backend = await pgBackend();
  const open = () =>
    backend.kind === 'server'
      ? preparedPool(backend.pool() as unknown as Parameters<typeof preparedPool>[0])
      : backend.pool();
  main = open();
  second = open();
});
afterAll(async () => {
  await backend.end();
});

describeTaskStoreContract('postgres', async () => {
  const clock = new ManualClock();
  const schema = freshSchema();
  // The store's pool goes through the lost-answer faults (idle unless a test arms them).
  const faults = new DriverFaults();
  const store = new PostgresTaskStore({ pool: faultyPool(main, faults), schema, clock, pollIntervalMs: 10 });
  await store.migrate();
  const peers: PostgresTaskStore[] = [];
  return {
    store,
    clock,
    faults,
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
