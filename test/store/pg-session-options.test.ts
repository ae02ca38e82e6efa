/**
 * The pools `openStore` makes set limits so nothing waits forever (ADR 0047, ADR 0063): lock_timeout,
 * statement_timeout and idle_in_transaction_session_timeout, checked on a real connection, also when the URL
 * brings session options of its own; and the migration pool without the statement limits. Needs a real server
 * (skipped with a notice without one, as the other PostgreSQL tests are).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrationPoolConfig, postgresPoolConfig } from '../../src/store/postgres/pg-connection-limits.js';
import { pgBackend, type PgBackend } from '../store-contract/pg-backend.js';

let backend: PgBackend;
beforeAll(async () => {
  backend = await pgBackend();
});
afterAll(async () => {
  await backend.end();
});

const SETTINGS =
  "SELECT current_setting('lock_timeout') AS lock, current_setting('statement_timeout') AS statement, " +
  "current_setting('idle_in_transaction_session_timeout') AS idle, current_setting('application_name') AS app";

async function settingsOf(config: object): Promise<Record<string, unknown>> {
  const pool = new pg.Pool({ ...config, max: 1 });
  try {
    return (await pool.query<Record<string, unknown>>(SETTINGS)).rows[0]!;
  } finally {
    await pool.end();
  }
}

describe('PostgreSQL session limits of openStore pools', () => {
  it('lock 10 s, statement 15 s, idle in a transaction 20 s by default', async (ctx) => {
    if (backend.kind !== 'server') return ctx.skip();
    expect(await settingsOf(postgresPoolConfig(backend.url!))).toMatchObject({
      lock: '10s',
      statement: '15s',
      idle: '20s',
    });
  });

  it("the URL's own session options are kept, after ours, and URL limits win", async (ctx) => {
    if (backend.kind !== 'server') return ctx.skip();
    const url = `${backend.url!}?options=${encodeURIComponent('-c application_name=probe -c lock_timeout=3000')}&statement_timeout=7000`;
    expect(await settingsOf(postgresPoolConfig(url))).toEqual({
      lock: '3s',
      statement: '7s',
      idle: '20s',
      app: 'probe',
    });
  });

  it('migrations run without a statement limit, locks and idle transactions keep theirs', async (ctx) => {
    if (backend.kind !== 'server') return ctx.skip();
    expect(await settingsOf(migrationPoolConfig(postgresPoolConfig(backend.url!)))).toMatchObject({
      lock: '10s',
      statement: '0',
      idle: '20s',
    });
  });
});
