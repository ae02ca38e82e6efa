/**
 * PostgreSQL: a keyed claim never waits on the transaction of another key while its scope is far from its cap
 * (ADR 0047). Before, every claim took the scope's advisory lock for its whole transaction, so one stalled claim
 * (a replica paused mid-transaction) held up every keyed send of its tenant on every replica. The stalled claimer
 * is played by another session holding that lock. Near the cap the lock is still taken, so the count stays exact.
 * Needs a real server (PGlite has one session).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/store/clock.js';
import { PostgresTaskStore } from '../../src/store/postgres/index.js';
import { CAPACITY_LOCK_CLASS } from '../../src/store/postgres/pg-claim-key.js';
import { ALICE, claimOf, HOUR, keyOf, makeTask } from '../store-contract/fixtures/tasks.js';
import { freshSchema, pgBackend, type PgBackend } from '../store-contract/pg-backend.js';

const backend: PgBackend = await pgBackend();
afterAll(() => backend.end());

/** Settles `p`, or reports that it was still waiting after `ms`. */
function within<T>(p: Promise<T>, ms: number): Promise<T | 'still waiting'> {
  return Promise.race([p, new Promise<'still waiting'>((r) => setTimeout(() => r('still waiting'), ms))]);
}

describe.skipIf(backend.kind !== 'server')('PostgreSQL key claims and the scope lock', () => {
  const schema = freshSchema();
  const clock = new ManualClock();
  let store: PostgresTaskStore;
  let stalled: pg.Client;
  beforeAll(async () => {
    store = new PostgresTaskStore({ pool: backend.pool(), schema, clock });
    await store.migrate();
    stalled = new pg.Client({ connectionString: backend.url });
    await stalled.connect();
  });
  afterAll(async () => {
    await stalled.query('ROLLBACK').catch(() => undefined);
    await stalled.end();
    await store.close();
  });

  const create = (n: number, maxKeysPerScope?: number) =>
    store.createTask(ALICE, {
      task: makeTask(`t${n}`),
      claim: claimOf(keyOf(n), `m${n}`, clock.now() + HOUR),
      ...(maxKeysPerScope !== undefined ? { maxKeysPerScope } : {}),
    });

  async function stallScope(): Promise<void> {
    await stalled.query('BEGIN');
    await stalled.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
      CAPACITY_LOCK_CLASS,
      JSON.stringify([schema, ALICE.tenant, ALICE.owner]),
    ]);
  }

  it('without a cap, and far below one, a claim goes through while another claimer holds the scope', async () => {
    // A first claim under the cap counts the scope's keys (under the lock: nothing holds it yet).
    expect((await create(1, 100_000)).outcome).toBe('created');
    await stallScope();
    try {
      expect(await within(create(2), 2_000)).toMatchObject({ outcome: 'created' });
      expect(await within(create(3, 100_000), 2_000)).toMatchObject({ outcome: 'created' });
    } finally {
      await stalled.query('ROLLBACK');
    }
  });

  it('near the cap a claim waits for the scope lock, so the count it makes is exact', async () => {
    await stallScope();
    let settled = false;
    const nearCap = create(4, 4).finally(() => (settled = true));
    try {
      expect(await within(nearCap, 500)).toBe('still waiting');
      expect(settled).toBe(false);
    } finally {
      await stalled.query('ROLLBACK');
    }
    // Three keys held, a cap of four: the fourth is claimed once the lock is free.
    expect(await nearCap).toMatchObject({ outcome: 'created' });
    expect((await create(5, 4)).outcome).toBe('capacity');
  });
});
