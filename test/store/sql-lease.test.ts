/**
 * `tryLead` on the SQL stores refuses arguments it cannot honour with a structured error and stores nothing
 * (ADR 0028); and the SQL list of interrupted states the abandoned phase selects agrees with the shared predicate.
 */
import { describe, expect, it } from 'vitest';
import { TASK_STATES } from '../../src/protocol/task-state.js';
import { isInterruptedState } from '../../src/store/abandon.js';
import { ManualClock } from '../../src/store/clock.js';
import { PostgresTaskStore } from '../../src/store/postgres/index.js';
import { INTERRUPTED_STATES_SQL } from '../../src/store/sql/sql-rows.js';
import { StoreError } from '../../src/store/sql/store-error.js';
import { SqliteTaskStore } from '../../src/store/sqlite/index.js';
import type { TaskStore } from '../../src/store/task-store.js';
import { freshSchema, pgBackend } from '../store-contract/pg-backend.js';

async function sqlite(): Promise<{ store: TaskStore; close: () => Promise<void> }> {
  const store = new SqliteTaskStore({ path: ':memory:', clock: new ManualClock() });
  await store.migrate();
  return { store, close: () => store.close() };
}

async function postgres(): Promise<{ store: TaskStore; close: () => Promise<void> }> {
  const backend = await pgBackend();
  const pool = backend.pool();
  const schema = freshSchema();
  const store = new PostgresTaskStore({ pool, schema, clock: new ManualClock() });
  await store.migrate();
  return {
    store,
    close: async () => {
      await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
      await backend.end();
    },
  };
}

describe.each([
  ['SQLite', sqlite],
  ['PostgreSQL', postgres],
] as const)('%s tryLead arguments', (_name, open) => {
  it('refuses an empty role or holder and a lease that is not a positive whole number of ms', async () => {
    const { store, close } = await open();
    try {
      const bad: [string, string, number][] = [
        ['', 'a', 1000],
        ['retention', '', 1000],
        ['retention', 'a', 0],
        ['retention', 'a', -1],
        ['retention', 'a', 1.5],
        ['retention', 'a', Number.NaN],
        ['retention', 'a', Number.POSITIVE_INFINITY],
      ];
      for (const [role, holder, ttl] of bad) {
        const err: unknown = await store.tryLead(role, holder, ttl).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(StoreError);
        expect(err).toMatchObject({ code: 'BAD_ARGUMENT' });
        expect((err as StoreError).message).toMatch(/^tryLead: /);
      }
      // None of them took the lease.
      expect(await store.tryLead('retention', 'b', 1000)).toBe(true);
      expect(await store.tryLead('retention', 'a', 1000)).toBe(false);
    } finally {
      await close();
    }
  });
});

describe('INTERRUPTED_STATES_SQL', () => {
  it('lists exactly the states isInterruptedState accepts', () => {
    for (const state of TASK_STATES) {
      expect(INTERRUPTED_STATES_SQL.includes(`'${state}'`)).toBe(isInterruptedState(state));
    }
    expect(INTERRUPTED_STATES_SQL).toBe("('TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED')");
  });
});
