/**
 * The pools `openStore` makes set session limits so nothing waits forever (ADR 0047): lock_timeout and
 * idle_in_transaction_session_timeout, checked on a real connection. Needs a real server (skipped with a notice
 * without one, as the other PostgreSQL tests are).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresPoolConfig } from '../../src/store/open-store.js';
import { pgBackend, type PgBackend } from '../store-contract/pg-backend.js';

let backend: PgBackend;
beforeAll(async () => {
  backend = await pgBackend();
});
afterAll(async () => {
  await backend.end();
});

describe('PostgreSQL session limits of openStore pools', () => {
  it('a statement never waits more than 10 s for a lock, nor a transaction more than 60 s idle', async (ctx) => {
    if (backend.kind !== 'server') return ctx.skip();
    const pool = new pg.Pool({ ...postgresPoolConfig(backend.url!), max: 1 });
    try {
      const { rows } = await pool.query(
        "SELECT current_setting('lock_timeout') AS lock, current_setting('idle_in_transaction_session_timeout') AS idle",
      );
      expect(rows[0]).toEqual({ lock: '10s', idle: '1min' });
    } finally {
      await pool.end();
    }
  });
});
