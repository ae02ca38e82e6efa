/**
 * The amortised sweep (run every 64 creations or claims, with a budget) makes progress everywhere: keys that
 * expired while their task still exists (an interrupted task nobody continues) cannot be tombstoned yet, and they
 * must not use up the budget of every sweep, in their own scope or ahead of other scopes (ADR 0025).
 */
import { describe, expect, it } from 'vitest';
import { ALICE, BOB, DAY, HOUR, keyOf, memoryStore, sweepOnce, taskIn } from './fixtures.js';

const asksKey = (i: number) => keyOf(`asks-${i}`);
const doneKey = (i: number) => keyOf(`done-${i}`);

describe('memory store: the amortised sweep', () => {
  it('reaches other scopes past many expired keys of interrupted tasks in the first scope', async () => {
    const { store, clock } = memoryStore({ sweepBudget: 16, terminalTaskTtlMs: HOUR, tombstoneTtlMs: DAY });
    const exp = clock.now() + HOUR;
    for (let i = 0; i < 200; i++)
      await taskIn(store, ALICE, `asks-${i}`, 'TASK_STATE_INPUT_REQUIRED', {
        key: asksKey(i),
        expiresAt: exp,
      });
    for (let i = 0; i < 20; i++)
      await taskIn(store, BOB, `done-${i}`, 'TASK_STATE_COMPLETED', { key: doneKey(i), expiresAt: exp });

    clock.advance(2 * HOUR);
    // Each stuck key is looked at once (then parked on its task): 200 of them take 13 sweeps of 16, not forever.
    for (let s = 0; s < 20; s++) await sweepOnce(store);
    // Bob's tasks went with the terminal TTL and his keys became tombstones, with no purge.
    for (let i = 0; i < 20; i++) expect((await store.getKey(BOB, doneKey(i)))?.tombstone).toBe(true);
    expect(store.keyCount(BOB)).toBe(0);
    // Alice's keys stay live: their tasks still wait for input.
    expect(store.keyCount(ALICE)).toBe(200);
    expect((await store.getKey(ALICE, asksKey(0)))?.tombstone).toBe(false);

    // Later the tombstones age out the same way, however many stuck keys come first.
    clock.advance(DAY);
    for (let s = 0; s < 10; s++) await sweepOnce(store);
    for (let i = 0; i < 20; i++) expect(await store.getKey(BOB, doneKey(i))).toBeUndefined();
    expect(store.tombstoneCount).toBe(0);
  });

  it('makes progress within a scope past its own stuck keys', async () => {
    const { store, clock } = memoryStore({ sweepBudget: 16, terminalTaskTtlMs: HOUR });
    const exp = clock.now() + HOUR;
    for (let i = 0; i < 200; i++)
      await taskIn(store, ALICE, `asks-${i}`, 'TASK_STATE_INPUT_REQUIRED', {
        key: asksKey(i),
        expiresAt: exp,
      });
    for (let i = 0; i < 20; i++)
      await taskIn(store, ALICE, `done-${i}`, 'TASK_STATE_COMPLETED', { key: doneKey(i), expiresAt: exp });

    clock.advance(2 * HOUR);
    for (let s = 0; s < 20; s++) await sweepOnce(store);
    for (let i = 0; i < 20; i++) expect((await store.getKey(ALICE, doneKey(i)))?.tombstone).toBe(true);
    expect(store.keyCount(ALICE)).toBe(200);
  });

  it('tombstones a stuck key as soon as its task goes, without waiting for the sweep to come round', async () => {
    const { store, clock } = memoryStore({ sweepBudget: 16 });
    await taskIn(store, ALICE, 'asks', 'TASK_STATE_INPUT_REQUIRED', {
      key: asksKey(0),
      expiresAt: clock.now() + HOUR,
    });
    clock.advance(2 * HOUR);
    await sweepOnce(store);
    expect(store.keyCount(ALICE)).toBe(1);
    // The task is ended and purged: its key was past expiry already, so it becomes a tombstone in the same step.
    await store.purgeExpired({ terminalMaxAgeMs: HOUR, interruptedMaxAgeMs: HOUR });
    await store.purgeExpired({ terminalMaxAgeMs: 0 });
    expect(store.taskCount).toBe(0);
    expect(store.keyCount(ALICE)).toBe(0);
    expect(await store.getKey(ALICE, asksKey(0))).toMatchObject({
      tombstone: true,
      tombstonedAt: clock.now(),
    });
  });
});
