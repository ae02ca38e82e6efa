/**
 * The in-memory store keeps a tombstone for its whole TTL counted from when it became a tombstone
 * (`tombstonedAt`, docs/semantics.md §6), whichever of its two housekeepers gets there: `purgeExpired` or the
 * amortised sweep that runs as tasks are created. Counting from the key's own `expiresAt` would let one pass
 * delete a task, tombstone its key and delete that tombstone at once, and the retry would run again.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALICE, DAY, HOUR, keyOf, memoryStore, retry, sweepOnce, taskIn } from './fixtures.js';

const WEEK = 7 * DAY;

describe('memory store: a tombstone lives its whole TTL from when it became one', () => {
  it('the amortised sweep that deletes a task on day 8 tombstones its key, and the tombstone lives 7 days from then', async () => {
    const { store, clock } = memoryStore({ terminalTaskTtlMs: WEEK, tombstoneTtlMs: WEEK });
    const start = clock.now();
    await taskIn(store, ALICE, 't1', 'TASK_STATE_COMPLETED', { key: keyOf(1), expiresAt: start + DAY });

    clock.set(start + 8 * DAY);
    await sweepOnce(store);
    const tombstonedAt = clock.now();
    expect(store.taskCount).toBe(0);
    expect(await store.getKey(ALICE, keyOf(1))).toMatchObject({
      taskId: 't1',
      tombstone: true,
      tombstonedAt,
    });

    for (const at of [tombstonedAt + HOUR, tombstonedAt + 3 * DAY, tombstonedAt + WEEK - 1]) {
      clock.set(at);
      await sweepOnce(store);
      expect(await retry(store, ALICE, keyOf(1))).toBe('expired');
    }
    clock.set(tombstonedAt + WEEK);
    await sweepOnce(store);
    expect(await store.getKey(ALICE, keyOf(1))).toBeUndefined();
    expect(await retry(store, ALICE, keyOf(1))).toBe('created');
  });

  it('purgeExpired without a tombstone age of its own uses the store TTL, counted from tombstonedAt', async () => {
    const { store, clock } = memoryStore({ tombstoneTtlMs: WEEK });
    const start = clock.now();
    await taskIn(store, ALICE, 't1', 'TASK_STATE_COMPLETED', { key: keyOf(1), expiresAt: start + DAY });
    clock.set(start + 8 * DAY);
    expect(await store.purgeExpired({ terminalMaxAgeMs: WEEK })).toMatchObject({
      tasks: 1,
      keys: 1,
      tombstones: 0,
    });
    const tombstonedAt = clock.now();
    clock.set(tombstonedAt + WEEK - 1);
    expect((await store.purgeExpired({ terminalMaxAgeMs: WEEK })).tombstones).toBe(0);
    expect(await retry(store, ALICE, keyOf(1))).toBe('expired');
    clock.set(tombstonedAt + WEEK);
    expect((await store.purgeExpired({ terminalMaxAgeMs: WEEK })).tombstones).toBe(1);
    expect(await store.getKey(ALICE, keyOf(1))).toBeUndefined();
  });

  it('refuses the retry until tombstonedAt + TTL however purges and sweeps interleave (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        // How long after the key's expiry its task finished, and then steps: advance, then purge or sweep.
        fc.integer({ min: 0, max: 20 * DAY }),
        fc.array(fc.record({ advance: fc.integer({ min: 0, max: 4 * DAY }), purge: fc.boolean() }), {
          minLength: 1,
          maxLength: 8,
        }),
        async (finishedAfterExpiry, steps) => {
          const ttl = 3 * DAY;
          const { store, clock } = memoryStore({ terminalTaskTtlMs: HOUR, tombstoneTtlMs: ttl });
          const start = clock.now();
          // The task is still working when its key expires, so the key cannot become a tombstone before then.
          await taskIn(store, ALICE, 't1', 'TASK_STATE_WORKING', { key: keyOf(1), expiresAt: start + HOUR });
          clock.set(start + HOUR + finishedAfterExpiry);
          const done = {
            ...(await store.getTask(ALICE, 't1'))!.task,
            status: { state: 'TASK_STATE_COMPLETED' as const },
          };
          expect((await store.commit(ALICE, 't1', { expectFence: 1, task: done, events: [] })).ok).toBe(true);
          let tombstonedAt: number | undefined;
          for (const step of steps) {
            clock.advance(step.advance);
            if (step.purge) await store.purgeExpired({ terminalMaxAgeMs: HOUR });
            else await sweepOnce(store);
            const k = await store.getKey(ALICE, keyOf(1));
            if (tombstonedAt === undefined && k?.tombstone) tombstonedAt = k.tombstonedAt;
            if (tombstonedAt !== undefined && clock.now() < tombstonedAt + ttl) {
              // Alive: still there, and a retry is refused rather than run again.
              expect(k).toMatchObject({ tombstone: true, tombstonedAt });
            }
            if (k === undefined) {
              // Gone: only ever after its full TTL.
              expect(tombstonedAt).toBeDefined();
              expect(clock.now()).toBeGreaterThanOrEqual(tombstonedAt! + ttl);
              return;
            }
          }
          const last = await store.getKey(ALICE, keyOf(1));
          if (last?.tombstone) expect(await retry(store, ALICE, keyOf(1))).toBe('expired');
        },
      ),
      { numRuns: 60 },
    );
  });
});
