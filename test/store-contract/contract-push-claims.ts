/**
 * Contract: push delivery claims (ADR 0045). A claimed webhook belongs to one dispatcher until it records an
 * outcome that releases it or its claim lapses; of any number of dispatchers claiming at once, across processes
 * sharing the store, each webhook goes to exactly one, so one webhook is never delivered to twice at once and its
 * events go out in order.
 */
import { describe, expect, it } from 'vitest';
import type { TaskStore } from '../../src/store/task-store.js';
import { ALICE, makeTask, statusEvent, withState } from './fixtures/tasks.js';
import type { MakeStore, StoreHarness } from './harness.js';
import { useStore } from './harness.js';

const CLAIM = 30_000;

async function racers(h: StoreHarness): Promise<{ stores: TaskStore[]; close: () => Promise<void> }> {
  if (!h.openPeer) return { stores: [h.store], close: () => Promise.resolve() };
  const peer = await h.openPeer();
  return { stores: [h.store, peer], close: () => peer.close() };
}

/** A task with `configs` webhooks and one event, so each webhook has work. */
async function taskWithWork(store: TaskStore, id: string, configs: number): Promise<void> {
  const pushConfigs = Array.from({ length: configs }, (_, i) => ({
    id: `c${i}`,
    url: `https://h.example/${i}`,
  }));
  await store.createTask(ALICE, { task: makeTask(id), pushConfigs });
  const task = withState(makeTask(id), 'TASK_STATE_WORKING');
  const res = await store.commit(ALICE, id, {
    expectFence: 1,
    task,
    events: [statusEvent(task, 'TASK_STATE_WORKING')],
  });
  if (!res.ok) throw new Error('commit refused');
}

/** Registers the claim tests. */
export function pushClaimContract(make: MakeStore): void {
  const h = useStore(make);

  describe('claimPushDeliveries', () => {
    it('hands a webhook to one holder until its claim lapses, then to another; the first one is fenced out', async () => {
      const { store, clock } = h();
      await taskWithWork(store, 't1', 1);
      expect(await store.claimPushDeliveries('a', CLAIM, 10)).toHaveLength(1);
      expect(await store.claimPushDeliveries('b', CLAIM, 10)).toEqual([]);
      clock.advance(CLAIM - 1);
      expect(await store.claimPushDeliveries('b', CLAIM, 10)).toEqual([]);
      clock.advance(1);
      expect(await store.claimPushDeliveries('b', CLAIM, 10)).toHaveLength(1);
      const ack = (holder: string) =>
        store.recordPushDelivery(ALICE, 't1', 'c0', holder, { kind: 'delivered', seq: 1, claimMs: CLAIM });
      expect(await ack('a')).toBe(false);
      expect(await store.recordPushDelivery(ALICE, 't1', 'c0', 'a', { kind: 'released' })).toBe(false);
      expect(await ack('b')).toBe(true);
    });

    it('extends the claim with each acknowledged event, and frees it when released', async () => {
      const { store, clock } = h();
      await taskWithWork(store, 't1', 1);
      const task = withState(makeTask('t1'), 'TASK_STATE_WORKING');
      await store.commit(ALICE, 't1', {
        expectFence: 1,
        task,
        events: [statusEvent(task, 'TASK_STATE_WORKING')],
      });
      await store.claimPushDeliveries('a', 1000, 10);
      clock.advance(900);
      await store.recordPushDelivery(ALICE, 't1', 'c0', 'a', { kind: 'delivered', seq: 1, claimMs: 1000 });
      clock.advance(900); // past the first claim, within the extended one
      expect(await store.claimPushDeliveries('b', 1000, 10)).toEqual([]);
      expect(await store.recordPushDelivery(ALICE, 't1', 'c0', 'a', { kind: 'released' })).toBe(true);
      expect(await store.claimPushDeliveries('b', 1000, 10)).toMatchObject([{ deliveredSeq: 1, taskSeq: 2 }]);
    });

    it('claims at most `limit`, the earliest due first', async () => {
      const { store, clock } = h();
      for (const id of ['t1', 't2', 't3']) await taskWithWork(store, id, 1);
      // t1 fails and is due later than the others.
      await store.claimPushDeliveries('a', CLAIM, 10);
      const now = clock.now();
      await store.recordPushDelivery(ALICE, 't1', 'c0', 'a', {
        kind: 'failed',
        seq: 1,
        error: 'x',
        retryAt: now + 10,
      });
      await store.recordPushDelivery(ALICE, 't2', 'c0', 'a', {
        kind: 'failed',
        seq: 1,
        error: 'x',
        retryAt: now + 5,
      });
      await store.recordPushDelivery(ALICE, 't3', 'c0', 'a', {
        kind: 'failed',
        seq: 1,
        error: 'x',
        retryAt: now + 7,
      });
      clock.advance(10);
      const first = await store.claimPushDeliveries('b', CLAIM, 2);
      expect(first.map((d) => d.taskId)).toEqual(['t2', 't3']);
      expect((await store.claimPushDeliveries('b', CLAIM, 2)).map((d) => d.taskId)).toEqual(['t1']);
    });

    it('gives each webhook to exactly one of many racing claimers', async () => {
      const { stores, close } = await racers(h());
      try {
        const store = stores[0]!;
        for (let t = 0; t < 4; t++) await taskWithWork(store, `t${t}`, 4);
        const claims = await Promise.all(
          Array.from({ length: 24 }, (_, i) =>
            stores[i % stores.length]!.claimPushDeliveries(`d${i}`, CLAIM, 3),
          ),
        );
        const got = claims.flat().map((d) => `${d.taskId}/${d.configId}`);
        expect(got).toHaveLength(16);
        expect(new Set(got).size).toBe(16);
      } finally {
        await close();
      }
    });

    it('lets a peer on the same database see and continue a cursor', async () => {
      const { stores, close } = await racers(h());
      try {
        const [a, b = a] = stores as [TaskStore, TaskStore?];
        await taskWithWork(a, 't1', 1);
        await a.claimPushDeliveries('a', CLAIM, 10);
        await a.recordPushDelivery(ALICE, 't1', 'c0', 'a', {
          kind: 'failed',
          seq: 1,
          error: 'HTTP 502',
          retryAt: 0,
        });
        expect(await b.getPushDelivery(ALICE, 't1', 'c0')).toMatchObject({
          attempts: 1,
          lastError: 'HTTP 502',
        });
        expect(await b.claimPushDeliveries('b', CLAIM, 10)).toMatchObject([{ taskId: 't1', attempts: 1 }]);
        expect(
          await b.recordPushDelivery(ALICE, 't1', 'c0', 'b', { kind: 'delivered', seq: 1, claimMs: CLAIM }),
        ).toBe(true);
        expect(await a.getPushDelivery(ALICE, 't1', 'c0')).toMatchObject({ deliveredSeq: 1, attempts: 0 });
      } finally {
        await close();
      }
    });
  });
}
