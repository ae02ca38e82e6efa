/**
 * A PostgreSQL connection that dies while a transaction holds it between two statements (a restart, a failover,
 * a terminated backend). pg reports that as an `error` event on the checked-out client, and pg's pool listens only
 * to idle clients: without a listener of the store's own, the event is an uncaught exception that ends the
 * process. The transaction must instead reject, and the dead client must not go back to the pool.
 * Needs a real server (PGlite has no backend to terminate): skipped with a notice without one.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/store/postgres/pg-transaction.js';
import { pgBackend, type PgBackend } from '../store-contract/pg-backend.js';

let backend: PgBackend;
beforeAll(async () => {
  backend = await pgBackend();
});
afterAll(async () => {
  await backend.end();
});

describe('a transaction whose connection dies between statements', () => {
  it('rejects, crashes nothing, and the pool serves the next transaction on a new connection', async (ctx) => {
    if (backend.kind !== 'server') return ctx.skip();
    const appName = `a2a_once_tx_drop_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    const pool = new pg.Pool({ connectionString: backend.url, application_name: appName, max: 2 });
    pool.on('error', () => undefined);
    const admin = new pg.Client({ connectionString: backend.url });
    await admin.connect();
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      let backendPid = 0;
      const outcome = inTransaction(pool, async (client) => {
        const { rows } = await client.query('SELECT pg_backend_pid() AS pid');
        backendPid = Number(rows[0]!.pid);
        // Between two statements: the connection is killed now, while no query is in flight.
        await admin.query('SELECT pg_terminate_backend($1)', [backendPid]);
        await new Promise((r) => setTimeout(r, 200));
        return client.query('SELECT 1');
      });
      await expect(outcome).rejects.toThrow();
      expect(uncaught).toEqual([]);
      const next = await inTransaction(pool, async (client) => {
        const { rows } = await client.query('SELECT pg_backend_pid() AS pid');
        return Number(rows[0]!.pid);
      });
      expect(next).not.toBe(backendPid);
    } finally {
      process.off('uncaughtException', onUncaught);
      await admin.end();
      await pool.end();
    }
  });
});
