/**
 * Contract: a tombstone lives its whole TTL counted from the moment it became a tombstone (`tombstonedAt`), never
 * from its key's `expiresAt` (docs/semantics.md §6, ADR 0027). A key can sit past its expiry for days while its
 * task still exists; if the tombstone's age were counted from `expiresAt`, the purge that deletes the task would
 * turn the key into a tombstone and delete that tombstone in the same sweep, and the caller's next retry would
 * find the key free and run the send again.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TaskStore } from '../../src/store/task-store.js';
import { ALICE, DAY, HOUR, claimOf, keyOf, makeTask, withState } from './fixtures/tasks.js';
import type { MakeStore } from './harness.js';
import { useStore } from './harness.js';

const WEEK = 7 * DAY;

/** A task claimed with `key` (expiring at `expiresAt`) and completed at once. */
async function completedWithKey(store: TaskStore, id: string, key: string, expiresAt: number): Promise<void> {
  const task = makeTask(id);
  const r = await store.createTask(ALICE, { task, claim: claimOf(key, `m-${id}`, expiresAt) });
  expect(r.outcome).toBe('created');
  const done = await store.commit(ALICE, id, {
    expectFence: 1,
    task: withState(task, 'TASK_STATE_COMPLETED'),
    events: [],
  });
  expect(done.ok).toBe(true);
}

/** What a retry with `key` gets now (a new task id each time, so a `created` would be visible). */
async function retry(store: TaskStore, key: string, n: number): Promise<string> {
  const r = await store.createTask(ALICE, { task: makeTask(`retry-${n}`), claim: claimOf(key, 'm-t1', 0) });
  return r.outcome;
}

/** Registers the tombstone-age tests. */
export function tombstoneAgeContract(make: MakeStore): void {
  const h = useStore(make);

  describe('tombstone age', () => {
    it('one purge on day 8 deletes the task and tombstones its key, and the tombstone lives 7 days from then', async () => {
      const { store, clock } = h();
      const start = clock.now();
      await completedWithKey(store, 't1', keyOf(1), start + DAY);
      const policy = { terminalMaxAgeMs: WEEK, tombstoneMaxAgeMs: WEEK };

      clock.set(start + 8 * DAY);
      const tombstonedAt = clock.now();
      expect(await store.purgeExpired(policy)).toEqual({
        tasks: 1,
        abandoned: 0,
        keys: 1,
        tombstones: 0,
        batches: 1,
        complete: true,
      });
      expect(await store.getKey(ALICE, keyOf(1))).toMatchObject({
        taskId: 't1',
        tombstone: true,
        tombstonedAt,
      });

      // Any number of purges before tombstonedAt + TTL: the tombstone stays, and a retry is refused as expired.
      let n = 0;
      for (const at of [tombstonedAt, tombstonedAt + HOUR, tombstonedAt + 3 * DAY, tombstonedAt + WEEK - 1]) {
        clock.set(at);
        expect((await store.purgeExpired(policy)).tombstones).toBe(0);
        expect(await retry(store, keyOf(1), ++n)).toBe('expired');
      }

      clock.set(tombstonedAt + WEEK);
      expect((await store.purgeExpired(policy)).tombstones).toBe(1);
      expect(await store.getKey(ALICE, keyOf(1))).toBeUndefined();
      expect(await retry(store, keyOf(1), ++n)).toBe('created');
    });

    it('a key tombstoned by a claim ages from that claim, not from its expiry', async () => {
      const { store, clock } = h();
      const start = clock.now();
      // A key whose task is gone and which no purge has swept: the claim that meets it makes the tombstone.
      await store.claimKey(ALICE, { claim: claimOf(keyOf(1), 'm1', start + HOUR), taskId: 'gone' });
      clock.set(start + 10 * DAY);
      const tombstonedAt = clock.now();
      const refused = await store.createTask(ALICE, {
        task: makeTask('t2'),
        claim: claimOf(keyOf(1), 'm1', 0),
      });
      expect(refused).toMatchObject({ outcome: 'expired', key: { tombstone: true, tombstonedAt } });
      expect(await store.getKey(ALICE, keyOf(1))).toMatchObject({ tombstone: true, tombstonedAt });

      clock.set(tombstonedAt + WEEK - 1);
      expect((await store.purgeExpired({ terminalMaxAgeMs: WEEK, tombstoneMaxAgeMs: WEEK })).tombstones).toBe(
        0,
      );
      expect((await store.getKey(ALICE, keyOf(1)))?.tombstone).toBe(true);
      clock.set(tombstonedAt + WEEK);
      expect((await store.purgeExpired({ terminalMaxAgeMs: WEEK, tombstoneMaxAgeMs: WEEK })).tombstones).toBe(
        1,
      );
      expect(await store.getKey(ALICE, keyOf(1))).toBeUndefined();
    });

    it('refuses a retry as expired until tombstonedAt + TTL, whatever the sweep times (property)', async () => {
      await fc.assert(
        fc.asyncProperty(
          // When the first purge runs after the key's expiry, the tombstone TTL, and the later sweeps.
          fc.integer({ min: 0, max: 30 * DAY }),
          fc.integer({ min: 1, max: 10 * DAY }),
          fc.array(fc.integer({ min: 0, max: 20 * DAY }), { minLength: 1, maxLength: 6 }),
          async (firstAfterExpiry, ttl, offsets) => {
            const harness = await make();
            try {
              const { store, clock } = harness;
              const start = clock.now();
              await completedWithKey(store, 't1', keyOf(1), start + HOUR);
              const policy = { terminalMaxAgeMs: HOUR, tombstoneMaxAgeMs: ttl };
              clock.set(start + HOUR + firstAfterExpiry);
              const tombstonedAt = clock.now();
              expect(await store.purgeExpired(policy)).toMatchObject({ tasks: 1, keys: 1, tombstones: 0 });
              let n = 0;
              let gone = false;
              for (const offset of [...offsets].sort((a, b) => a - b)) {
                clock.set(tombstonedAt + offset);
                const report = await store.purgeExpired(policy);
                const alive = clock.now() < tombstonedAt + ttl;
                expect(report.tombstones).toBe(!alive && !gone ? 1 : 0);
                if (alive) {
                  expect(await store.getKey(ALICE, keyOf(1))).toMatchObject({
                    tombstone: true,
                    tombstonedAt,
                  });
                  expect(await retry(store, keyOf(1), ++n)).toBe('expired');
                } else {
                  expect(await store.getKey(ALICE, keyOf(1))).toBeUndefined();
                  gone = true;
                }
              }
            } finally {
              await harness.cleanup();
            }
          },
        ),
        { numRuns: 25 },
      );
    });
  });
}
