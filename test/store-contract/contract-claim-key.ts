/**
 * Contract: claimKey and releaseKey, the key of a keyed continuation (a message for an existing task). The key
 * follows every rule of a key claimed with a new task (held, expired, replace, capacity, scope, liveness,
 * tombstones), so "K held, different M" is refused for continuations too (docs/semantics.md §2). Racing claims of one key,
 * across store instances where the store is shared, have exactly one winner.
 */
import { describe, expect, it } from 'vitest';
import type { TaskStore } from '../../src/store/task-store.js';
import { expireKey } from './contract-keys.js';
import { ALICE, BOB, HOUR, OTHER_TENANT, claimOf, keyOf, makeTask, withState } from './fixtures/tasks.js';
import type { MakeStore, StoreHarness } from './harness.js';
import { useStore } from './harness.js';

const RACERS = 64;

/** The stores to race on: the harness store, plus a peer on the same database where the backend has one. */
async function racers(h: StoreHarness): Promise<{ stores: TaskStore[]; close: () => Promise<void> }> {
  if (!h.openPeer) return { stores: [h.store], close: () => Promise.resolve() };
  const peer = await h.openPeer();
  return { stores: [h.store, peer], close: () => peer.close() };
}

/** Registers the claimKey / releaseKey tests. */
export function claimKeyContract(make: MakeStore): void {
  const h = useStore(make);

  /** Creates an unkeyed task in `scope` (the task a continuation targets). */
  async function existing(id: string, scope = ALICE): Promise<void> {
    expect((await h().store.createTask(scope, { task: makeTask(id) })).outcome).toBe('created');
  }

  describe('claimKey', () => {
    it('claims a key for an existing task and leaves the task untouched', async () => {
      const { store, clock } = h();
      await existing('t1');
      const before = await store.getTask(ALICE, 't1');
      clock.advance(1000);
      const exp = clock.now() + HOUR;
      const r = await store.claimKey(ALICE, { claim: claimOf(keyOf(1), 'm2', exp, 'dg2'), taskId: 't1' });
      const key = {
        key: keyOf(1),
        messageId: 'm2',
        digest: 'dg2',
        taskId: 't1',
        createdAt: clock.now(),
        expiresAt: exp,
        tombstone: false,
      };
      expect(r).toEqual({ outcome: 'claimed', key });
      expect(await store.getKey(ALICE, keyOf(1))).toEqual(key);
      expect(await store.getTask(ALICE, 't1')).toEqual(before);
      expect(await store.readEvents(ALICE, 't1', 0)).toEqual([]);
    });

    it('reports a held key (same or other message) and writes nothing', async () => {
      const { store, clock } = h();
      await existing('t1');
      const exp = clock.now() + HOUR;
      await store.claimKey(ALICE, { claim: claimOf(keyOf(1), 'm2', exp), taskId: 't1' });
      clock.advance(1000);
      for (const messageId of ['m2', 'm3']) {
        const r = await store.claimKey(ALICE, {
          claim: claimOf(keyOf(1), messageId, exp + HOUR),
          taskId: 't1',
        });
        expect(r).toMatchObject({ outcome: 'held', key: { taskId: 't1', messageId: 'm2', expiresAt: exp } });
      }
      expect(await store.getKey(ALICE, keyOf(1))).toMatchObject({ messageId: 'm2', expiresAt: exp });
    });

    it('shares one key space with createTask, both ways', async () => {
      const { store, clock } = h();
      const exp = clock.now() + HOUR;
      await store.createTask(ALICE, { task: makeTask('t1'), claim: claimOf(keyOf(1), 'm1', exp) });
      await existing('t2');
      const held = await store.claimKey(ALICE, { claim: claimOf(keyOf(1), 'm2', exp), taskId: 't2' });
      expect(held).toMatchObject({ outcome: 'held', key: { taskId: 't1', messageId: 'm1' } });

      await store.claimKey(ALICE, { claim: claimOf(keyOf(2), 'm2', exp), taskId: 't2' });
      const create = await store.createTask(ALICE, {
        task: makeTask('t3'),
        claim: claimOf(keyOf(2), 'm3', exp),
      });
      expect(create).toMatchObject({ outcome: 'held', key: { taskId: 't2', messageId: 'm2' } });
      expect(await store.getTask(ALICE, 't3')).toBeUndefined();
    });

    it('keeps scopes apart: the same key for each tenant and owner', async () => {
      const { store, clock } = h();
      const exp = clock.now() + HOUR;
      for (const [scope, id] of [
        [ALICE, 'ta'],
        [BOB, 'tb'],
        [OTHER_TENANT, 'tc'],
      ] as const) {
        await existing(id, scope);
        const r = await store.claimKey(scope, { claim: claimOf(keyOf(1), 'm', exp), taskId: id });
        expect(r.outcome).toBe('claimed');
      }
      expect((await store.getKey(ALICE, keyOf(1)))?.taskId).toBe('ta');
      expect((await store.getKey(BOB, keyOf(1)))?.taskId).toBe('tb');
      expect((await store.getKey(OTHER_TENANT, keyOf(1)))?.taskId).toBe('tc');
    });
  });

  describe('claimKey liveness and tombstones', () => {
    it('keeps the key held past expiresAt while its task exists, then tombstones it once the task is purged', async () => {
      const { store, clock } = h();
      const task = makeTask('t1');
      await store.createTask(ALICE, { task });
      await store.claimKey(ALICE, { claim: claimOf(keyOf(1), 'm2', clock.now() + HOUR), taskId: 't1' });
      clock.advance(10 * HOUR);
      const held = await store.claimKey(ALICE, {
        claim: claimOf(keyOf(1), 'm3', clock.now() + HOUR),
        taskId: 't1',
      });
      expect(held).toMatchObject({ outcome: 'held', key: { messageId: 'm2', tombstone: false } });
      expect((await store.purgeExpired({ terminalMaxAgeMs: HOUR })).keys).toBe(0);

      await store.commit(ALICE, 't1', {
        expectFence: 1,
        task: withState(task, 'TASK_STATE_COMPLETED'),
        events: [],
      });
      clock.advance(2 * HOUR);
      expect(await store.purgeExpired({ terminalMaxAgeMs: HOUR })).toMatchObject({ tasks: 1, keys: 1 });
      expect(await store.getKey(ALICE, keyOf(1))).toMatchObject({
        taskId: 't1',
        messageId: 'm2',
        tombstone: true,
      });

      await existing('t2');
      const late = await store.claimKey(ALICE, { claim: claimOf(keyOf(1), 'm2', 0), taskId: 't2' });
      expect(late).toMatchObject({ outcome: 'expired', key: { taskId: 't1', tombstone: true } });
      clock.advance(8 * 24 * HOUR);
      expect((await store.purgeExpired({ terminalMaxAgeMs: HOUR })).tombstones).toBe(1);
      expect(await store.getKey(ALICE, keyOf(1))).toBeUndefined();
      const fresh = await store.claimKey(ALICE, { claim: claimOf(keyOf(1), 'm4', 0), taskId: 't2' });
      expect(fresh).toMatchObject({ outcome: 'claimed', key: { taskId: 't2', messageId: 'm4' } });
    });

    it('turns an expired key whose task is gone into a tombstone on claim, and refuses it', async () => {
      const { store, clock } = h();
      // A key pointing at a task that no longer exists, past its expiry, never swept: the claim itself decides.
      await store.claimKey(ALICE, { claim: claimOf(keyOf(1), 'm1', clock.now() + HOUR), taskId: 'gone' });
      clock.advance(2 * HOUR);
      await existing('t2');
      const r = await store.claimKey(ALICE, { claim: claimOf(keyOf(1), 'm2', 0), taskId: 't2' });
      expect(r).toMatchObject({ outcome: 'expired', key: { taskId: 'gone', tombstone: true } });
      expect((await store.getKey(ALICE, keyOf(1)))?.tombstone).toBe(true);
    });

    it("replaces a tombstone when onExpiredKey is 'replace'", async () => {
      const { store, clock } = h();
      await expireKey(h, keyOf(1));
      await existing('t9');
      const refused = await store.claimKey(ALICE, { claim: claimOf(keyOf(1), 'm9', 0), taskId: 't9' });
      expect(refused.outcome).toBe('expired');
      const exp = clock.now() + HOUR;
      const r = await store.claimKey(ALICE, {
        claim: claimOf(keyOf(1), 'm9', exp),
        taskId: 't9',
        onExpiredKey: 'replace',
      });
      expect(r).toMatchObject({
        outcome: 'claimed',
        key: { taskId: 't9', messageId: 'm9', tombstone: false },
      });
      expect(await store.getKey(ALICE, keyOf(1))).toMatchObject({
        taskId: 't9',
        expiresAt: exp,
        tombstone: false,
      });
    });
  });

  describe('claimKey capacity', () => {
    it('refuses a new key at the cap, counting live keys of the scope from createTask and claimKey only', async () => {
      const { store, clock } = h();
      const exp = clock.now() + HOUR;
      const cap = { maxKeysPerScope: 3 };
      await expireKey(h, keyOf(0));
      await store.createTask(ALICE, { task: makeTask('t1'), claim: claimOf(keyOf(1), 'm1', exp) });
      await existing('t2');
      const claim = (scope: typeof ALICE, key: string, taskId = 't2', messageId = 'm') =>
        store.claimKey(scope, { claim: claimOf(key, messageId, exp), taskId, ...cap });
      expect((await claim(ALICE, keyOf(2))).outcome).toBe('claimed');
      // The tombstone of keyOf(0) takes no slot: keys 1 and 2 are live, so a third still fits.
      expect((await claim(ALICE, keyOf(3))).outcome).toBe('claimed');
      expect(await claim(ALICE, keyOf(4))).toEqual({ outcome: 'capacity' });
      expect(await store.getKey(ALICE, keyOf(4))).toBeUndefined();
      // The continuation's keys count against createTask's cap too.
      const create = await store.createTask(ALICE, {
        task: makeTask('t3'),
        claim: claimOf(keyOf(4), 'm', exp),
        ...cap,
      });
      expect(create.outcome).toBe('capacity');
      // A held key is still answered at the cap; another principal and another tenant have their own caps.
      expect((await claim(ALICE, keyOf(2), 't2', 'x')).outcome).toBe('held');
      await existing('tb', BOB);
      expect((await claim(BOB, keyOf(4), 'tb')).outcome).toBe('claimed');
      await existing('tg', OTHER_TENANT);
      expect((await claim(OTHER_TENANT, keyOf(4), 'tg')).outcome).toBe('claimed');
      // Releasing a live key frees its slot.
      expect(await store.releaseKey(ALICE, keyOf(3), 't2', 'm')).toBe(true);
      expect((await claim(ALICE, keyOf(4))).outcome).toBe('claimed');
    });
  });

  describe('releaseKey', () => {
    it('deletes the key only for its task and message, in its scope, and leaves the task alone', async () => {
      const { store, clock } = h();
      await existing('t1');
      await existing('t2');
      const exp = clock.now() + HOUR;
      await store.claimKey(ALICE, { claim: claimOf(keyOf(1), 'm2', exp), taskId: 't1' });
      expect(await store.releaseKey(ALICE, keyOf(1), 't2', 'm2')).toBe(false);
      expect(await store.releaseKey(ALICE, keyOf(1), 't1', 'm3')).toBe(false);
      expect(await store.releaseKey(BOB, keyOf(1), 't1', 'm2')).toBe(false);
      expect(await store.releaseKey(ALICE, keyOf(9), 't1', 'm2')).toBe(false);
      expect((await store.getKey(ALICE, keyOf(1)))?.messageId).toBe('m2');

      expect(await store.releaseKey(ALICE, keyOf(1), 't1', 'm2')).toBe(true);
      expect(await store.getKey(ALICE, keyOf(1))).toBeUndefined();
      expect(await store.getTask(ALICE, 't1')).toMatchObject({ fence: 1, seq: 0 });
      expect(await store.releaseKey(ALICE, keyOf(1), 't1', 'm2')).toBe(false);
      // Released, the key can be claimed again (the caller's retry can run).
      const again = await store.claimKey(ALICE, { claim: claimOf(keyOf(1), 'm3', exp), taskId: 't1' });
      expect(again.outcome).toBe('claimed');
    });

    it('frees a slot under the cap, and never releases a tombstone', async () => {
      const { store, clock } = h();
      const exp = clock.now() + HOUR;
      const cap = { maxKeysPerScope: 1 };
      await existing('t1');
      await store.claimKey(ALICE, { claim: claimOf(keyOf(1), 'm1', exp), taskId: 't1', ...cap });
      expect(
        (await store.claimKey(ALICE, { claim: claimOf(keyOf(2), 'm', exp), taskId: 't1', ...cap })).outcome,
      ).toBe('capacity');
      expect(await store.releaseKey(ALICE, keyOf(1), 't1', 'm1')).toBe(true);
      expect(
        (await store.claimKey(ALICE, { claim: claimOf(keyOf(2), 'm', exp), taskId: 't1', ...cap })).outcome,
      ).toBe('claimed');

      await expireKey(h, keyOf(3));
      expect(await store.releaseKey(ALICE, keyOf(3), `exp-${keyOf(3)}`, 'm1')).toBe(false);
      expect((await store.getKey(ALICE, keyOf(3)))?.tombstone).toBe(true);
    });
  });

  describe('claimKey races', () => {
    it(`${RACERS} concurrent claimKey of one key: exactly one claimed, the rest held by the winner`, async () => {
      const { stores, close } = await racers(h());
      try {
        await existing('t1');
        const exp = h().clock.now() + HOUR;
        const results = await Promise.all(
          Array.from({ length: RACERS }, (_, i) =>
            stores[i % stores.length]!.claimKey(ALICE, {
              claim: claimOf(keyOf('race'), `m${i}`, exp),
              taskId: 't1',
            }),
          ),
        );
        const claimed = results.flatMap((r) => (r.outcome === 'claimed' ? [r.key.messageId] : []));
        expect(claimed).toHaveLength(1);
        for (const r of results) {
          if (r.outcome !== 'claimed')
            expect(r).toMatchObject({ outcome: 'held', key: { messageId: claimed[0] } });
        }
        expect((await h().store.getKey(ALICE, keyOf('race')))?.messageId).toBe(claimed[0]);
      } finally {
        await close();
      }
    });

    it('claimKey racing createTask on one key: exactly one wins', async () => {
      const { stores, close } = await racers(h());
      try {
        await existing('t1');
        const exp = h().clock.now() + HOUR;
        const results = await Promise.all(
          Array.from({ length: RACERS }, (_, i) => {
            const store = stores[i % stores.length]!;
            const claim = claimOf(keyOf('mixed'), `m${i}`, exp);
            return i % 2 === 0
              ? store.claimKey(ALICE, { claim, taskId: 't1' })
              : store.createTask(ALICE, { task: makeTask(`n${i}`), claim });
          }),
        );
        const wins = results.filter((r) => r.outcome === 'claimed' || r.outcome === 'created');
        expect(wins).toHaveLength(1);
        expect(results.filter((r) => r.outcome === 'held')).toHaveLength(RACERS - 1);
        const page = await h().store.listTasks(ALICE, { pageSize: 100 });
        expect(page.totalSize).toBe(wins[0]!.outcome === 'created' ? 2 : 1);
      } finally {
        await close();
      }
    });

    it('holds the per-scope cap under concurrent claimKey of distinct keys, each principal its own', async () => {
      const { stores, close } = await racers(h());
      try {
        await existing('t1');
        await existing('t1', BOB);
        const exp = h().clock.now() + HOUR;
        // Alice's and Bob's claims interleave: each gets exactly its own 10, whatever the order.
        const results = await Promise.all(
          Array.from({ length: 64 }, (_, i) =>
            stores[i % stores.length]!.claimKey(i % 4 < 2 ? ALICE : BOB, {
              claim: claimOf(keyOf(i), 'm', exp),
              taskId: 't1',
              maxKeysPerScope: 10,
            }),
          ),
        );
        for (const owner of [0, 1]) {
          const mine = results.filter((_, i) => (i % 4 < 2 ? 0 : 1) === owner);
          expect(mine.filter((r) => r.outcome === 'claimed')).toHaveLength(10);
          expect(mine.filter((r) => r.outcome === 'capacity')).toHaveLength(22);
        }
      } finally {
        await close();
      }
    });
  });
}
