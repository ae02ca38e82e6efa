/**
 * Contract: races. 64 concurrent claims of one key have exactly one winner; 64 concurrent compare-and-sets on one
 * fence have exactly one winner; the per-scope key cap holds under concurrency. For shared stores the racers
 * are split over two store instances with their own connections.
 */
import { describe, expect, it } from 'vitest';
import type { TaskStore } from '../../src/store/task-store.js';
import { ALICE, BOB, HOUR, claimOf, keyOf, makeTask, statusEvent } from './fixtures/tasks.js';
import type { MakeStore, StoreHarness } from './harness.js';
import { useStore } from './harness.js';

const RACERS = 64;

async function racers(h: StoreHarness): Promise<{ stores: TaskStore[]; close: () => Promise<void> }> {
  if (!h.openPeer) return { stores: [h.store], close: () => Promise.resolve() };
  const peer = await h.openPeer();
  return { stores: [h.store, peer], close: () => peer.close() };
}

/** Registers the race tests. */
export function raceContract(make: MakeStore): void {
  const h = useStore(make);

  describe('races', () => {
    it(`${RACERS} concurrent claims of one key: exactly one created, the rest held by the winner`, async () => {
      const { stores, close } = await racers(h());
      try {
        const exp = h().clock.now() + HOUR;
        const results = await Promise.all(
          Array.from({ length: RACERS }, (_, i) =>
            stores[i % stores.length]!.createTask(ALICE, {
              task: makeTask(`t${i}`),
              claim: claimOf(keyOf('race'), 'm', exp),
            }),
          ),
        );
        const created = results.flatMap((r, i) => (r.outcome === 'created' ? [`t${i}`] : []));
        expect(created).toHaveLength(1);
        const winner = created[0]!;
        for (const r of results) {
          if (r.outcome !== 'created') expect(r).toMatchObject({ outcome: 'held', key: { taskId: winner } });
        }
        const { store } = h();
        expect(await store.getTask(ALICE, winner)).toBeDefined();
        expect((await store.listTasks(ALICE, { pageSize: 100 })).totalSize).toBe(1);
      } finally {
        await close();
      }
    });

    it(`${RACERS} concurrent commits expecting one fence and seq: exactly one ok`, async () => {
      const { stores, close } = await racers(h());
      try {
        const task = makeTask('t1');
        await h().store.createTask(ALICE, { task });
        const results = await Promise.all(
          Array.from({ length: RACERS }, (_, i) =>
            stores[i % stores.length]!.commit(ALICE, 't1', {
              expectFence: 1,
              expectSeq: 0,
              task,
              events: [statusEvent(task, 'TASK_STATE_WORKING', `w${i}`)],
            }),
          ),
        );
        expect(results.filter((r) => r.ok)).toHaveLength(1);
        for (const r of results) if (!r.ok) expect(r.current?.seq).toBe(1);
        expect(await h().store.readEvents(ALICE, 't1', 0)).toHaveLength(1);
      } finally {
        await close();
      }
    });

    it(`${RACERS} concurrent takeovers of one fence: exactly one moves it`, async () => {
      const { stores, close } = await racers(h());
      try {
        const task = makeTask('t1');
        await h().store.createTask(ALICE, { task });
        const results = await Promise.all(
          Array.from({ length: RACERS }, (_, i) =>
            stores[i % stores.length]!.commit(ALICE, 't1', {
              expectFence: 1,
              nextFence: 2,
              task,
              events: [],
            }),
          ),
        );
        expect(results.filter((r) => r.ok)).toHaveLength(1);
        expect((await h().store.getTask(ALICE, 't1'))?.fence).toBe(2);
      } finally {
        await close();
      }
    });

    it('holds the per-scope key cap under concurrent claims of distinct keys, each principal its own', async () => {
      const { stores, close } = await racers(h());
      try {
        const exp = h().clock.now() + HOUR;
        // Alice's and Bob's creates interleave over both store instances: each gets exactly its own 10.
        const scopeOf = (i: number) => (i % 4 < 2 ? ALICE : BOB);
        const results = await Promise.all(
          Array.from({ length: 64 }, (_, i) =>
            stores[i % stores.length]!.createTask(scopeOf(i), {
              task: makeTask(`t${i}`),
              claim: claimOf(keyOf(i), 'm', exp),
              maxKeysPerScope: 10,
            }),
          ),
        );
        for (const scope of [ALICE, BOB]) {
          const mine = results.filter((_, i) => scopeOf(i) === scope);
          expect(mine.filter((r) => r.outcome === 'created')).toHaveLength(10);
          expect(mine.filter((r) => r.outcome === 'capacity')).toHaveLength(22);
          expect((await h().store.listTasks(scope, { pageSize: 100 })).totalSize).toBe(10);
        }
      } finally {
        await close();
      }
    });
  });
}
