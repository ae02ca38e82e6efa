/** Contract: purgeExpired (terminal tasks only, batches, maxBatches, keys never deleted with their tasks). */
import { describe, expect, it } from 'vitest';
import type { PurgeReport } from '../../src/store/retention.js';
import type { TaskStore } from '../../src/store/task-store.js';
import { ALICE, BOB, HOUR, claimOf, keyOf, makeTask, statusEvent, withState } from './fixtures/tasks.js';
import type { MakeStore } from './harness.js';
import { useStore } from './harness.js';

async function finished(store: TaskStore, id: string, key?: string, expiresAt = 0): Promise<void> {
  const task = makeTask(id);
  await store.createTask(ALICE, { task, ...(key ? { claim: claimOf(key, `m-${id}`, expiresAt) } : {}) });
  const done = withState(task, 'TASK_STATE_COMPLETED');
  await store.commit(ALICE, id, {
    expectFence: 1,
    task: done,
    events: [statusEvent(task, 'TASK_STATE_COMPLETED')],
  });
}

/** Registers the retention tests. */
export function purgeContract(make: MakeStore): void {
  const h = useStore(make);

  describe('purgeExpired', () => {
    it('deletes only finished tasks older than the policy, with their events and push configs', async () => {
      const { store, clock } = h();
      await finished(store, 'old-done');
      await store.putPushConfig(ALICE, 'old-done', { id: 'p', url: 'https://hooks.example/p' });
      await store.createTask(ALICE, { task: makeTask('old-working', { state: 'TASK_STATE_WORKING' }) });
      const reply = { messageId: 'r', role: 'ROLE_AGENT' as const, parts: [{ text: 'x' }] };
      await store.createTask(BOB, { task: makeTask('old-message') });
      await store.commit(BOB, 'old-message', {
        expectFence: 1,
        task: makeTask('old-message'),
        events: [],
        reply,
      });
      clock.advance(2 * HOUR);
      await finished(store, 'new-done');
      const report = await store.purgeExpired({ terminalMaxAgeMs: HOUR });
      expect(report).toEqual({ tasks: 2, abandoned: 0, keys: 0, tombstones: 0, batches: 1, complete: true });
      expect(await store.getTask(ALICE, 'old-done')).toBeUndefined();
      expect(await store.getTask(BOB, 'old-message')).toBeUndefined();
      expect(await store.readEvents(ALICE, 'old-done', 0)).toEqual([]);
      expect(await store.listPushConfigs(ALICE, 'old-done')).toEqual([]);
      expect(await store.getTask(ALICE, 'old-working')).toBeDefined();
      expect(await store.getTask(ALICE, 'new-done')).toBeDefined();
      expect(await store.purgeExpired({ terminalMaxAgeMs: HOUR })).toEqual({
        tasks: 0,
        abandoned: 0,
        keys: 0,
        tombstones: 0,
        batches: 0,
        complete: true,
      });
    });

    it('never deletes a key with its task; the key becomes a tombstone once expired, then goes', async () => {
      const { store, clock } = h();
      await finished(store, 't1', keyOf(1), clock.now() + 3 * HOUR);
      clock.advance(2 * HOUR);
      expect(await store.purgeExpired({ terminalMaxAgeMs: HOUR })).toMatchObject({
        tasks: 1,
        abandoned: 0,
        keys: 0,
      });
      expect(await store.getKey(ALICE, keyOf(1))).toMatchObject({ taskId: 't1', tombstone: false });
      clock.advance(2 * HOUR);
      expect(
        await store.purgeExpired({ terminalMaxAgeMs: HOUR, tombstoneMaxAgeMs: 24 * HOUR }),
      ).toMatchObject({
        tasks: 0,
        keys: 1,
        tombstones: 0,
      });
      expect(await store.getKey(ALICE, keyOf(1))).toMatchObject({ taskId: 't1', tombstone: true });
      clock.advance(24 * HOUR);
      expect(
        await store.purgeExpired({ terminalMaxAgeMs: HOUR, tombstoneMaxAgeMs: 24 * HOUR }),
      ).toMatchObject({
        keys: 0,
        tombstones: 1,
      });
      expect(await store.getKey(ALICE, keyOf(1))).toBeUndefined();
    });

    it('works in batches, stops at maxBatches with complete false, and resumes', async () => {
      const { store, clock } = h();
      for (let i = 0; i < 5; i++) await finished(store, `t${i}`);
      clock.advance(2 * HOUR);
      const progress: PurgeReport[] = [];
      const partial = await store.purgeExpired({
        terminalMaxAgeMs: HOUR,
        batchSize: 2,
        maxBatches: 1,
        onProgress: (r) => progress.push(r),
      });
      expect(partial).toEqual({
        tasks: 2,
        abandoned: 0,
        keys: 0,
        tombstones: 0,
        batches: 1,
        complete: false,
      });
      expect(progress.at(-1)).toEqual(partial);
      const rest = await store.purgeExpired({ terminalMaxAgeMs: HOUR, batchSize: 2 });
      expect(rest).toEqual({ tasks: 3, abandoned: 0, keys: 0, tombstones: 0, batches: 2, complete: true });
    });

    it('counts tasks, keys and tombstones together in batches and reports progress per batch', async () => {
      const { store, clock } = h();
      for (let i = 0; i < 3; i++) await finished(store, `t${i}`, keyOf(i), clock.now() + HOUR);
      clock.advance(2 * HOUR);
      const progress: PurgeReport[] = [];
      const r = await store.purgeExpired({
        terminalMaxAgeMs: HOUR,
        batchSize: 2,
        onProgress: (p) => progress.push(p),
      });
      expect(r).toEqual({ tasks: 3, abandoned: 0, keys: 3, tombstones: 0, batches: 3, complete: true });
      expect(progress.map((p) => p.batches)).toEqual([1, 2, 3, 3]);
      expect(progress.at(-1)).toEqual(r);
    });

    it('says complete when maxBatches is reached exactly as the work runs out', async () => {
      const { store, clock } = h();
      for (let i = 0; i < 4; i++) await finished(store, `t${i}`);
      clock.advance(2 * HOUR);
      expect(await store.purgeExpired({ terminalMaxAgeMs: HOUR, batchSize: 2, maxBatches: 2 })).toEqual({
        tasks: 4,
        abandoned: 0,
        keys: 0,
        tombstones: 0,
        batches: 2,
        complete: true,
      });
    });
  });
}
