/**
 * SQLite's retention batches hold 100 rows when the policy names no size (ADR 0138): a batch runs on the server's
 * own thread and holds the only writer, so every send waits behind it. A policy's own size still wins; a policy's
 * `maxBatches` still allows as many rows a run; and the server's retention schedule leaves the size to the store
 * unless it is configured.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveRetentionSchedule } from '../../../src/server/retention/retention-schedule.js';
import { ManualClock } from '../../../src/store/clock.js';
import { SQLITE_PURGE_BATCH_SIZE } from '../../../src/store/retention.js';
import { SqliteTaskStore } from '../../../src/store/sqlite/index.js';
import { ALICE, HOUR, makeTask, statusEvent, withState } from '../../store-contract/fixtures/tasks.js';

const dirs: string[] = [];
const stores: SqliteTaskStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function storeWithFinished(n: number): Promise<SqliteTaskStore> {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-once-purge-batch-'));
  dirs.push(dir);
  const clock = new ManualClock();
  const store = new SqliteTaskStore({ path: join(dir, 'store.db'), clock });
  stores.push(store);
  await store.migrate();
  for (let i = 0; i < n; i++) {
    const task = makeTask(`done-${i}`);
    await store.createTask(ALICE, { task });
    await store.commit(ALICE, task.id, {
      expectFence: 1,
      task: withState(task, 'TASK_STATE_COMPLETED'),
      events: [statusEvent(task, 'TASK_STATE_COMPLETED')],
    });
  }
  clock.advance(2 * HOUR);
  return store;
}

describe('SQLite retention batch size', () => {
  it('is 100 rows a batch when the policy names none', async () => {
    expect(SQLITE_PURGE_BATCH_SIZE).toBe(100);
    const store = await storeWithFinished(250);
    const report = await store.purgeExpired({ terminalMaxAgeMs: HOUR });
    expect(report).toMatchObject({ tasks: 250, batches: 3, complete: true });
  });

  it('takes the policy’s own size when it names one', async () => {
    const store = await storeWithFinished(250);
    const report = await store.purgeExpired({ terminalMaxAgeMs: HOUR, batchSize: 1000 });
    expect(report).toMatchObject({ tasks: 250, batches: 1, complete: true });
  });

  it('counts a policy’s maxBatches in batches of the usual 1,000 rows when it names no size', async () => {
    const store = await storeWithFinished(250);
    // One batch of 1,000 rows allowed: ten of SQLite's, so all 250 go in this run.
    expect(await store.purgeExpired({ terminalMaxAgeMs: HOUR, maxBatches: 1 })).toMatchObject({
      tasks: 250,
      batches: 3,
      complete: true,
    });
    const named = await storeWithFinished(250);
    expect(await named.purgeExpired({ terminalMaxAgeMs: HOUR, batchSize: 100, maxBatches: 1 })).toMatchObject(
      {
        tasks: 100,
        batches: 1,
        complete: false,
      },
    );
  });

  it('is left to the store by the server’s retention schedule unless configured', () => {
    expect(resolveRetentionSchedule({}).batchSize).toBeUndefined();
    expect(resolveRetentionSchedule({ batchSize: 500 }).batchSize).toBe(500);
  });
});
