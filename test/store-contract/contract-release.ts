/** Contract: releaseClaim (only a claim whose task never started; never a key pointing at another task). */
import { describe, expect, it } from 'vitest';
import { ALICE, BOB, HOUR, claimOf, keyOf, makeTask, statusEvent } from './fixtures/tasks.js';
import type { MakeStore } from './harness.js';
import { useStore } from './harness.js';

/** Registers the releaseClaim tests. */
export function releaseContract(make: MakeStore): void {
  const h = useStore(make);

  describe('releaseClaim', () => {
    it('releases a fresh claim: task, push configs and key go, and the key can be claimed again', async () => {
      const { store, clock } = h();
      const exp = clock.now() + HOUR;
      const pushConfigs = [{ id: 'p1', taskId: 't1', url: 'https://hooks.example/1' }];
      await store.createTask(ALICE, {
        task: makeTask('t1'),
        claim: claimOf(keyOf(1), 'm1', exp),
        pushConfigs,
      });
      expect(await store.releaseClaim(ALICE, 't1', keyOf(1))).toBe(true);
      expect(await store.getTask(ALICE, 't1')).toBeUndefined();
      expect(await store.getKey(ALICE, keyOf(1))).toBeUndefined();
      expect(await store.listPushConfigs(ALICE, 't1')).toEqual([]);
      expect(await store.releaseClaim(ALICE, 't1', keyOf(1))).toBe(false);
      const again = await store.createTask(ALICE, {
        task: makeTask('t2'),
        claim: claimOf(keyOf(1), 'm1', exp),
      });
      expect(again.outcome).toBe('created');
    });

    it('refuses once the task has an event or a new fence', async () => {
      const { store, clock } = h();
      const exp = clock.now() + HOUR;
      const t1 = makeTask('t1');
      const t2 = makeTask('t2');
      await store.createTask(ALICE, { task: t1, claim: claimOf(keyOf(1), 'm1', exp) });
      await store.createTask(ALICE, { task: t2, claim: claimOf(keyOf(2), 'm2', exp) });
      await store.commit(ALICE, 't1', {
        expectFence: 1,
        task: t1,
        events: [statusEvent(t1, 'TASK_STATE_WORKING')],
      });
      await store.commit(ALICE, 't2', { expectFence: 1, nextFence: 2, task: t2, events: [] });
      expect(await store.releaseClaim(ALICE, 't1', keyOf(1))).toBe(false);
      expect(await store.releaseClaim(ALICE, 't2', keyOf(2))).toBe(false);
      expect(await store.getTask(ALICE, 't1')).toBeDefined();
      expect(await store.getKey(ALICE, keyOf(2))).toBeDefined();
      expect(await store.releaseClaim(ALICE, 'missing', undefined)).toBe(false);
    });

    it('never deletes a key that points at another task, nor across scopes', async () => {
      const { store, clock } = h();
      const exp = clock.now() + HOUR;
      await store.createTask(ALICE, { task: makeTask('t1'), claim: claimOf(keyOf(1), 'm1', exp) });
      await store.createTask(ALICE, { task: makeTask('t2') });
      expect(await store.releaseClaim(BOB, 't1', keyOf(1))).toBe(false);
      expect(await store.releaseClaim(ALICE, 't2', keyOf(1))).toBe(true);
      expect((await store.getKey(ALICE, keyOf(1)))?.taskId).toBe('t1');
      expect(await store.getTask(ALICE, 't1')).toBeDefined();
    });
  });
}
