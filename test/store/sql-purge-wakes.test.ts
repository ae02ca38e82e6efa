/**
 * The SQL stores wake their own watchers when retention ends or deletes a task (ADR 0028): with a poll interval
 * of a minute, a watcher that only polled would not see the end for a minute, so each check gives the event
 * two seconds to arrive.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isoAt } from '../../src/protocol/iso-time.js';
import { abandonedTaskWrite } from '../../src/store/abandon.js';
import { ManualClock } from '../../src/store/clock.js';
import { PostgresTaskStore } from '../../src/store/postgres/index.js';
import type { StoredEvent } from '../../src/store/records.js';
import { SqliteTaskStore } from '../../src/store/sqlite/index.js';
import type { TaskStore } from '../../src/store/task-store.js';
import { ALICE, DAY, makeTask, statusEvent, withState } from '../store-contract/fixtures/tasks.js';
import { freshSchema, pgBackend } from '../store-contract/pg-backend.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-wakes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const POLL_MS = 60_000;
let n = 0;

interface Opened {
  store: TaskStore;
  clock: ManualClock;
  close(): Promise<void>;
}

async function sqlite(): Promise<Opened> {
  const clock = new ManualClock();
  const store = new SqliteTaskStore({ path: join(dir, `w-${++n}.db`), clock, pollIntervalMs: POLL_MS });
  await store.migrate();
  return { store, clock, close: () => store.close() };
}

async function postgres(): Promise<Opened> {
  const backend = await pgBackend();
  const pool = backend.pool();
  const schema = freshSchema();
  const clock = new ManualClock();
  const store = new PostgresTaskStore({ pool, schema, clock, pollIntervalMs: POLL_MS });
  await store.migrate();
  return {
    store,
    clock,
    close: async () => {
      await store.close();
      await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
      await backend.end();
    },
  };
}

/** The watch's next step, or 'timeout' after two seconds. */
function nextWithin(it: AsyncIterator<StoredEvent>): Promise<IteratorResult<StoredEvent> | 'timeout'> {
  return Promise.race([
    it.next(),
    new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 2000)),
  ]);
}

describe.each([
  ['SQLite', sqlite],
  ['PostgreSQL', postgres],
] as const)('%s: purge wakes local watchers', (_name, open) => {
  it('delivers the event that ends an abandoned task at once', async () => {
    const { store, clock, close } = await open();
    const ac = new AbortController();
    try {
      const task = makeTask('t1');
      await store.createTask(ALICE, { task });
      const waiting = withState(task, 'TASK_STATE_INPUT_REQUIRED', isoAt(clock.now()));
      await store.commit(ALICE, 't1', {
        expectFence: 1,
        task: waiting,
        events: [statusEvent(task, 'TASK_STATE_INPUT_REQUIRED')],
      });
      const it = store.watch(ALICE, 't1', 1, ac.signal)[Symbol.asyncIterator]();
      const next = nextWithin(it);
      await new Promise((resolve) => setTimeout(resolve, 50)); // the watch has read seq 1 and sleeps
      clock.advance(31 * DAY);
      const report = await store.purgeExpired({ terminalMaxAgeMs: 7 * DAY, interruptedMaxAgeMs: 30 * DAY });
      expect(report.abandoned).toBe(1);
      expect(await next).toEqual({
        done: false,
        value: { seq: 2, event: abandonedTaskWrite(waiting, clock.now()).event },
      });
    } finally {
      ac.abort();
      await close();
    }
  });

  it('ends the watch of a task it deletes at once', async () => {
    const { store, clock, close } = await open();
    const ac = new AbortController();
    try {
      const task = makeTask('t1');
      await store.createTask(ALICE, { task });
      await store.commit(ALICE, 't1', {
        expectFence: 1,
        task: withState(task, 'TASK_STATE_COMPLETED'),
        events: [statusEvent(task, 'TASK_STATE_COMPLETED')],
      });
      const it = store.watch(ALICE, 't1', 1, ac.signal)[Symbol.asyncIterator]();
      const next = nextWithin(it);
      await new Promise((resolve) => setTimeout(resolve, 50));
      clock.advance(8 * DAY);
      expect((await store.purgeExpired({ terminalMaxAgeMs: 7 * DAY })).tasks).toBe(1);
      expect(await next).toEqual({ done: true, value: undefined });
    } finally {
      ac.abort();
      await close();
    }
  });
});
