/**
 * A silent PostgreSQL never hangs the store (docs/guides/stores-and-scale-out.md "When the database goes silent",
 * ADR 0063, ADR 0064). Between the pool and a real server sits a loopback TCP proxy that stalls every open
 * connection, the way a partition does: open, answering nothing. A statement on a stalled connection fails
 * within the query timeout, its connection is destroyed rather than reused, a transaction that went unanswered
 * gives up once (no ROLLBACK queued behind it) and leaves no lock past the idle-in-transaction bound, and the
 * store serves again on new connections without the stalled ones ever healing. Needs a real server (skipped with
 * a notice without one, as the other PostgreSQL tests are).
 */
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type OpenedStore } from '../../src/store/open-store.js';
import {
  postgresPoolConfig,
  type PostgresConnectionLimits,
} from '../../src/store/postgres/pg-connection-limits.js';
import { preparedPool } from '../../src/store/postgres/prepared-pool.js';
import { transactionOnPool } from '../../src/store/postgres/pg-transaction.js';
import { ALICE, claimOf, makeTask } from '../store-contract/fixtures/tasks.js';
import { freshSchema, pgBackend, type PgBackend } from '../store-contract/pg-backend.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

let backend: PgBackend;
let proxy: TcpProxy;
const cleanups: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  backend = await pgBackend();
  proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
});
afterEach(async () => {
  proxy.heal();
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
});
afterAll(async () => {
  await proxy.close();
  await backend.end();
});

/** The test database's URL, through the proxy. */
function viaProxy(): string {
  const url = new URL(backend.url!);
  url.port = String(proxy.port);
  return url.toString();
}

/** Short limits, so each test waits a second, not twenty. */
const QUICK: PostgresConnectionLimits = {
  queryTimeoutMs: 1_000,
  statementTimeoutMs: 800,
  idleInTransactionTimeoutMs: 1_000,
  connectTimeoutMs: 2_000,
};

function pool(limits: PostgresConnectionLimits, max = 2): pg.Pool {
  const p = new pg.Pool({ ...postgresPoolConfig(viaProxy(), limits), max });
  p.on('error', () => undefined);
  cleanups.push(() => p.end());
  return p;
}

/** How long `run` took to settle, and how. */
async function timed(run: () => Promise<unknown>): Promise<{ ms: number; error?: Error }> {
  const start = performance.now();
  try {
    await run();
    return { ms: performance.now() - start };
  } catch (err) {
    return { ms: performance.now() - start, error: err as Error };
  }
}

async function until(check: () => boolean, ms = 1_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
}

const onServer = () => backend.kind === 'server';

describe('a silent PostgreSQL, behind a stalling proxy', () => {
  it('with the default limits, a statement on a stalled connection fails instead of hanging', async (ctx) => {
    if (!onServer()) return ctx.skip();
    const p = pool({}, 1);
    await p.query('SELECT 1');
    proxy.stall();
    const { ms, error } = await timed(() => p.query('SELECT 1'));
    expect(error?.message).toBe('Query read timeout');
    // The default query timeout is 20 s: about that long, and not forever.
    expect(ms).toBeGreaterThan(19_000);
    expect(ms).toBeLessThan(25_000);
  }, 40_000);

  it('the timed-out connection is destroyed, and the next statement runs on a new one', async (ctx) => {
    if (!onServer()) return ctx.skip();
    const p = pool(QUICK, 1);
    await p.query('SELECT 1');
    const before = proxy.connections().length;
    proxy.stall();
    const { error } = await timed(() => p.query('SELECT 1'));
    expect(error?.message).toBe('Query read timeout');
    // Its socket was closed by the client (seen at the proxy), not handed back to the pool.
    await until(() => proxy.connections()[before - 1]?.open === false);
    expect(proxy.connections()[before - 1]).toMatchObject({ open: false, stalled: true });
    // The stall goes on for the old connections; a new one passes, so the pool works again unhealed.
    const { rows } = await p.query('SELECT 2 AS two');
    expect(rows).toEqual([{ two: 2 }]);
    expect(proxy.connections().length).toBe(before + 1);
  });

  it('an unanswered transaction gives up once, without a ROLLBACK queued behind it, and leaves no lock', async (ctx) => {
    if (!onServer()) return ctx.skip();
    const schema = freshSchema();
    const direct = backend.pool();
    await direct.query(`CREATE SCHEMA ${schema}`);
    cleanups.push(() => direct.query(`DROP SCHEMA ${schema} CASCADE`));
    await direct.query(`CREATE TABLE ${schema}.t (id int PRIMARY KEY, n int)`);
    await direct.query(`INSERT INTO ${schema}.t VALUES (1, 0)`);
    const p = preparedPool(pool(QUICK, 1));
    const { ms, error } = await timed(() =>
      transactionOnPool(p, async (c) => {
        await c.query(`UPDATE ${schema}.t SET n = n + 1 WHERE id = 1`);
        proxy.stall();
        await c.query('SELECT 1');
        return { commit: true, result: undefined };
      }),
    );
    expect(error?.message).toBe('Query read timeout');
    // One query timeout (1 s), not two: a ROLLBACK on that connection would have waited its own second.
    expect(ms).toBeLessThan(1_700);
    // The row lock the stalled session holds is gone once the server ends it (idle in transaction, 1 s).
    const lock = await timed(() =>
      direct.query(`SET lock_timeout = 3000; UPDATE ${schema}.t SET n = n + 10 WHERE id = 1`),
    );
    expect(lock.error).toBeUndefined();
    expect(lock.ms).toBeLessThan(2_500);
    // The unanswered transaction never committed.
    const { rows } = await direct.query(`SELECT n FROM ${schema}.t WHERE id = 1`);
    expect(rows).toEqual([{ n: 10 }]);
  });

  it('a store opened through the proxy answers every call within a bound and serves again on new connections', async (ctx) => {
    if (!onServer()) return ctx.skip();
    const schema = freshSchema();
    const url = `${viaProxy()}${viaProxy().includes('?') ? '&' : '?'}schema=${schema}`;
    const store: OpenedStore = await openStore(url, { postgres: QUICK });
    cleanups.push(async () => {
      await store.close();
      await backend.pool().query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    });
    const expiresAt = Date.now() + 3_600_000;
    // Warm: the pool holds connections, all of which the stall catches.
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        store.createTask(ALICE, {
          task: makeTask(`warm-${i}`),
          claim: claimOf(`warm-key-${i}-0123456789`, `m-warm-${i}`, expiresAt),
        }),
      ),
    );
    const stalledOnes = proxy.openCount();
    expect(stalledOnes).toBeGreaterThan(0);
    proxy.stall();
    const calls = await Promise.all([
      timed(() => store.getTask(ALICE, 'warm-0')),
      timed(() =>
        store.createTask(ALICE, {
          task: makeTask('during-stall'),
          claim: claimOf('stall-key-0123456789', 'm-during', expiresAt),
        }),
      ),
      timed(() => store.listTasks(ALICE, { pageSize: 10 })),
    ]);
    // Each settles: an answer from a new connection, or the timeout of a stalled one (then maybe a new one's
    // answer, when the store ran a batch's items alone). A few query timeouts at most, never a hang.
    for (const c of calls) expect(c.ms).toBeLessThan(6_000);
    expect(calls.some((c) => c.error?.message === 'Query read timeout')).toBe(true);
    // The stalled connections are never reused: with none healed, the store serves on new ones.
    const read = await timed(() => store.getTask(ALICE, 'warm-1'));
    expect(read.error).toBeUndefined();
    expect(read.ms).toBeLessThan(3_000);
  }, 30_000);
});
