/** Contract: createTask, key claims, liveness, tombstones, capacity, scope isolation, releaseClaim. */
import { describe, expect, it } from 'vitest';
import type { Scope } from '../../src/store/scope.js';
import { ALICE, BOB, HOUR, OTHER_TENANT, claimOf, keyOf, makeTask, withState } from './fixtures/tasks.js';
import type { MakeStore, StoreHarness } from './harness.js';
import { useStore } from './harness.js';

/** Registers the key and createTask tests. */
export function keyContract(make: MakeStore): void {
  const h = useStore(make);

  describe('createTask', () => {
    it('refuses an id that exists in the scope with TASK_EXISTS, and its new key stays unclaimed', async () => {
      const { store } = h();
      await store.createTask(ALICE, { task: makeTask('t1') });
      await expect(
        store.createTask(ALICE, { task: makeTask('t1'), claim: claimOf('k-new', 'm-new', HOUR) }),
      ).rejects.toMatchObject({ code: 'TASK_EXISTS' });
      // Nothing of the refused create was written: the key is free for the send's retry to claim.
      expect(await store.getKey(ALICE, 'k-new')).toBeUndefined();
      expect((await store.getTask(ALICE, 't1'))?.seq).toBe(0);
      expect(
        (await store.createTask(ALICE, { task: makeTask('t2'), claim: claimOf('k-new', 'm-new', HOUR) }))
          .outcome,
      ).toBe('created');
    });

    it('creates an unkeyed task with fence 1 and seq 0 at the clock time', async () => {
      const { store, clock } = h();
      const task = makeTask('t1');
      const r = await store.createTask(ALICE, { task });
      expect(r).toEqual({
        outcome: 'created',
        record: { task, kind: 'task', fence: 1, seq: 0, createdAt: clock.now(), updatedAt: clock.now() },
      });
      expect(await store.getTask(ALICE, 't1')).toEqual({
        task,
        kind: 'task',
        fence: 1,
        seq: 0,
        createdAt: clock.now(),
        updatedAt: clock.now(),
      });
      expect(await store.getTask(ALICE, 'nope')).toBeUndefined();
    });

    it('claims a key together with the task', async () => {
      const { store, clock } = h();
      const exp = clock.now() + HOUR;
      const r = await store.createTask(ALICE, {
        task: makeTask('t1'),
        claim: claimOf(keyOf(1), 'm1', exp, 'dg'),
      });
      expect(r.outcome).toBe('created');
      expect(await store.getKey(ALICE, keyOf(1))).toEqual({
        key: keyOf(1),
        messageId: 'm1',
        digest: 'dg',
        taskId: 't1',
        createdAt: clock.now(),
        expiresAt: exp,
        tombstone: false,
      });
      expect(await store.getKey(ALICE, keyOf(2))).toBeUndefined();
    });

    it('reports a held key (same or other message) and writes nothing', async () => {
      const { store, clock } = h();
      const exp = clock.now() + HOUR;
      await store.createTask(ALICE, { task: makeTask('t1'), claim: claimOf(keyOf(1), 'm1', exp) });
      clock.advance(1000);
      for (const messageId of ['m1', 'm2']) {
        const r = await store.createTask(ALICE, {
          task: makeTask('t2'),
          claim: claimOf(keyOf(1), messageId, exp),
        });
        expect(r.outcome).toBe('held');
        if (r.outcome !== 'held') return;
        expect(r.key).toMatchObject({ taskId: 't1', messageId: 'm1', tombstone: false });
      }
      expect(await store.getTask(ALICE, 't2')).toBeUndefined();
    });

    it('stores inline push configs with the task, skipping configs without an id', async () => {
      const { store } = h();
      const pushConfigs = [
        { id: 'p1', taskId: 't1', url: 'https://hooks.example/1' },
        { taskId: 't1', url: 'https://hooks.example/no-id' },
        { id: 'p2', taskId: 't1', url: 'https://hooks.example/2', token: 'tok' },
      ];
      await store.createTask(ALICE, { task: makeTask('t1'), pushConfigs });
      expect(await store.listPushConfigs(ALICE, 't1')).toEqual([pushConfigs[0], pushConfigs[2]]);
    });
  });

  describe('scope isolation', () => {
    it('lets the same key live in two tenants and two owners, each with its own task', async () => {
      const { store, clock } = h();
      const exp = clock.now() + HOUR;
      for (const [scope, id] of [
        [ALICE, 'ta'],
        [BOB, 'tb'],
        [OTHER_TENANT, 'tc'],
      ] as const) {
        const r = await store.createTask(scope, { task: makeTask(id), claim: claimOf(keyOf(1), 'm1', exp) });
        expect(r.outcome).toBe('created');
      }
      expect((await store.getKey(ALICE, keyOf(1)))?.taskId).toBe('ta');
      expect((await store.getKey(BOB, keyOf(1)))?.taskId).toBe('tb');
      expect((await store.getKey(OTHER_TENANT, keyOf(1)))?.taskId).toBe('tc');
      expect(await store.getTask(BOB, 'ta')).toBeUndefined();
      expect(await store.getTask(OTHER_TENANT, 'ta')).toBeUndefined();
    });
  });

  describe('key liveness and tombstones', () => {
    it('keeps an expired key held while its task exists (a key never expires before its task)', async () => {
      const { store, clock } = h();
      await store.createTask(ALICE, {
        task: makeTask('t1'),
        claim: claimOf(keyOf(1), 'm1', clock.now() + HOUR),
      });
      clock.advance(10 * HOUR);
      const r = await store.createTask(ALICE, {
        task: makeTask('t2'),
        claim: claimOf(keyOf(1), 'm1', clock.now() + HOUR),
      });
      expect(r.outcome).toBe('held');
      expect((await store.purgeExpired({ terminalMaxAgeMs: HOUR })).keys).toBe(0);
      expect((await store.getKey(ALICE, keyOf(1)))?.tombstone).toBe(false);
    });

    it('keeps a live key whose task was purged, then turns it into a tombstone once expired', async () => {
      const { store, clock } = h();
      const task = makeTask('t1');
      await store.createTask(ALICE, { task, claim: claimOf(keyOf(1), 'm1', clock.now() + 10 * HOUR) });
      await store.commit(ALICE, 't1', {
        expectFence: 1,
        task: withState(task, 'TASK_STATE_COMPLETED'),
        events: [],
      });
      clock.advance(2 * HOUR);
      expect(await store.purgeExpired({ terminalMaxAgeMs: HOUR })).toMatchObject({ tasks: 1, keys: 0 });
      expect(await store.getTask(ALICE, 't1')).toBeUndefined();
      // The key outlived its task: a retry is held (the server answers "task not found"), never run again.
      const again = await store.createTask(ALICE, {
        task: makeTask('t2'),
        claim: claimOf(keyOf(1), 'm1', 0),
      });
      expect(again.outcome).toBe('held');
      clock.advance(10 * HOUR);
      const late = await store.createTask(ALICE, { task: makeTask('t3'), claim: claimOf(keyOf(1), 'm1', 0) });
      expect(late).toMatchObject({ outcome: 'expired', key: { taskId: 't1', tombstone: true } });
      expect((await store.getKey(ALICE, keyOf(1)))?.tombstone).toBe(true);
      expect(await store.getTask(ALICE, 't3')).toBeUndefined();
    });

    it('counts the live keys of every scope, and a tombstone no longer', async () => {
      const { store, clock } = h();
      if (!store.countLiveKeys) throw new Error('every bundled store counts its live keys');
      expect(await store.countLiveKeys()).toBe(0);
      const task = makeTask('t1');
      await store.createTask(ALICE, { task, claim: claimOf(keyOf(1), 'm1', clock.now() + HOUR) });
      await store.createTask(BOB, {
        task: makeTask('t2'),
        claim: claimOf(keyOf(1), 'm1', clock.now() + HOUR),
      });
      await store.createTask(OTHER_TENANT, {
        task: makeTask('t3'),
        claim: claimOf(keyOf(2), 'm2', clock.now() + HOUR),
      });
      await store.createTask(ALICE, { task: makeTask('unkeyed') });
      expect(await store.countLiveKeys()).toBe(3);
      // ALICE's task finishes and is purged; once its key expired, a late retry turns it into a tombstone.
      await store.commit(ALICE, 't1', {
        expectFence: 1,
        task: withState(task, 'TASK_STATE_COMPLETED'),
        events: [],
      });
      clock.advance(2 * HOUR);
      await store.purgeExpired({ terminalMaxAgeMs: HOUR });
      const late = await store.createTask(ALICE, { task: makeTask('t4'), claim: claimOf(keyOf(1), 'm1', 0) });
      expect(late.outcome).toBe('expired');
      expect(await store.countLiveKeys()).toBe(2);
    });

    it("replaces an expired key when onExpiredKey is 'replace'", async () => {
      const { store, clock } = h();
      await expireKey(h, keyOf(1));
      const exp = clock.now() + HOUR;
      const r = await store.createTask(ALICE, {
        task: makeTask('t9'),
        claim: claimOf(keyOf(1), 'm9', exp),
        onExpiredKey: 'replace',
      });
      expect(r.outcome).toBe('created');
      expect(await store.getKey(ALICE, keyOf(1))).toMatchObject({
        taskId: 't9',
        messageId: 'm9',
        tombstone: false,
      });
    });

    it('refuses a tombstone by default, and deletes it once past its age', async () => {
      const { store, clock } = h();
      await expireKey(h, keyOf(1));
      const r = await store.createTask(ALICE, { task: makeTask('t9'), claim: claimOf(keyOf(1), 'm1', 0) });
      expect(r).toMatchObject({ outcome: 'expired', key: { key: keyOf(1), tombstone: true } });
      clock.advance(HOUR);
      const keep = await store.purgeExpired({ terminalMaxAgeMs: HOUR, tombstoneMaxAgeMs: 5 * HOUR });
      expect(keep.tombstones).toBe(0);
      clock.advance(5 * HOUR);
      const gone = await store.purgeExpired({ terminalMaxAgeMs: HOUR, tombstoneMaxAgeMs: 5 * HOUR });
      expect(gone.tombstones).toBe(1);
      expect(await store.getKey(ALICE, keyOf(1))).toBeUndefined();
      const fresh = await store.createTask(ALICE, {
        task: makeTask('t10'),
        claim: claimOf(keyOf(1), 'm1', 0),
      });
      expect(fresh.outcome).toBe('created');
    });
  });

  describe('maxKeysPerScope', () => {
    it('refuses a new key at the cap, writes nothing, and gives each principal and tenant its own cap', async () => {
      const { store, clock } = h();
      const exp = clock.now() + HOUR;
      const cap = { maxKeysPerScope: 2 };
      const create = (scope: Scope, id: string, key: string) =>
        store.createTask(scope, { task: makeTask(id), claim: claimOf(key, 'm', exp), ...cap });
      expect((await create(ALICE, 'a1', keyOf(1))).outcome).toBe('created');
      expect((await create(ALICE, 'a2', keyOf(2))).outcome).toBe('created');
      expect(await create(ALICE, 'a3', keyOf(3))).toEqual({ outcome: 'capacity' });
      expect(await store.getTask(ALICE, 'a3')).toBeUndefined();
      expect(await store.getKey(ALICE, keyOf(3))).toBeUndefined();
      // Another principal of the same tenant has its own cap: Alice's keys never count against Bob's.
      expect((await create(BOB, 'b1', keyOf(1))).outcome).toBe('created');
      expect((await create(BOB, 'b2', keyOf(3))).outcome).toBe('created');
      expect(await create(BOB, 'b3', keyOf(4))).toEqual({ outcome: 'capacity' });
      // A held key is still answered at the cap; unkeyed sends and other tenants are not capped.
      expect((await create(ALICE, 'a4', keyOf(1))).outcome).toBe('held');
      expect((await store.createTask(ALICE, { task: makeTask('e'), ...cap })).outcome).toBe('created');
      expect((await create(OTHER_TENANT, 'f', keyOf(3))).outcome).toBe('created');
    });

    it('never counts tombstones', async () => {
      const { store, clock } = h();
      await expireKey(h, keyOf(1));
      const cap = { maxKeysPerScope: 1 };
      const create = (id: string, key: string) =>
        store.createTask(ALICE, { task: makeTask(id), claim: claimOf(key, 'm', clock.now() + HOUR), ...cap });
      expect((await create('x', keyOf(2))).outcome).toBe('created');
      expect(await create('y', keyOf(3))).toEqual({ outcome: 'capacity' });
      expect((await store.getKey(ALICE, keyOf(1)))?.tombstone).toBe(true);
      // Purging the tombstone frees nothing: it never took a slot.
      clock.advance(8 * 24 * HOUR);
      expect((await store.purgeExpired({ terminalMaxAgeMs: 100 * 24 * HOUR })).tombstones).toBe(1);
      expect(await create('z', keyOf(3))).toEqual({ outcome: 'capacity' });
    });

    it('frees the slot of a key past its expiry whose task is gone, without a purge', async () => {
      const { store, clock } = h();
      const cap = { maxKeysPerScope: 1 };
      // Claimed for a task that is gone: once past its expiry the key is no longer live (docs/semantics.md §2).
      await store.claimKey(ALICE, {
        claim: claimOf(keyOf(1), 'm1', clock.now() + HOUR),
        taskId: 'gone',
        ...cap,
      });
      const early = await store.createTask(ALICE, {
        task: makeTask('early'),
        claim: claimOf(keyOf(2), 'm', clock.now() + HOUR),
        ...cap,
      });
      expect(early).toEqual({ outcome: 'capacity' });
      clock.advance(2 * HOUR);
      const r = await store.createTask(ALICE, {
        task: makeTask('x'),
        claim: claimOf(keyOf(2), 'm', clock.now() + HOUR),
        ...cap,
      });
      expect(r.outcome).toBe('created');
      // The expired key was remembered as a tombstone on the way, never simply dropped.
      expect(await store.getKey(ALICE, keyOf(1))).toMatchObject({
        tombstone: true,
        tombstonedAt: clock.now(),
      });
    });
  });
}

/** Leaves `key` as a tombstone in ALICE's scope: claimed, its task finished and purged, the key expired. */
export async function expireKey(h: () => StoreHarness, key: string): Promise<void> {
  const { store, clock } = h();
  const task = makeTask(`exp-${key}`);
  await store.createTask(ALICE, { task, claim: claimOf(key, 'm1', clock.now() + HOUR) });
  await store.commit(ALICE, task.id, {
    expectFence: 1,
    task: withState(task, 'TASK_STATE_FAILED'),
    events: [],
  });
  clock.advance(2 * HOUR);
  const r = await store.purgeExpired({ terminalMaxAgeMs: HOUR });
  expect(r).toMatchObject({ tasks: 1, keys: 1 });
}
