/**
 * Contract: delegation lease renewals (docs/semantics.md §4 "Delegation", ADR 0044). A delegating parent's poll
 * records, on the child's task, when the parent last renewed the lease it gave; the replica that runs the child
 * reads it back. The record is kept by the store, so a renewal taken by one replica is seen by every other.
 */
import { expect, it } from 'vitest';
import type { Message } from '../../src/protocol/model.js';
import { ALICE, BOB, DAY, OTHER_TENANT, makeTask, statusEvent, withState } from './fixtures/tasks.js';
import type { MakeStore } from './harness.js';
import { useStore } from './harness.js';

/** Registers the parent renewal tests. */
export function parentRenewalContract(make: MakeStore): void {
  const h = useStore(make);

  it('a task never renewed has no renewal; an unknown task has none either', async () => {
    const { store } = h();
    await store.createTask(ALICE, { task: makeTask('t1') });
    expect(await store.lastParentRenewal(ALICE, 't1')).toBeUndefined();
    expect(await store.lastParentRenewal(ALICE, 'nope')).toBeUndefined();
  });

  it('records the store’s now on each renewal, the latest one winning', async () => {
    const { store, clock } = h();
    await store.createTask(ALICE, { task: makeTask('t1') });
    expect(await store.recordParentRenewal(ALICE, 't1')).toBe(true);
    expect(await store.lastParentRenewal(ALICE, 't1')).toBe(clock.now());
    clock.advance(1234);
    expect(await store.recordParentRenewal(ALICE, 't1')).toBe(true);
    expect(await store.lastParentRenewal(ALICE, 't1')).toBe(clock.now());
  });

  it('is not a write of the task: fence, sequence, update time and lease stay', async () => {
    const { store, clock } = h();
    await store.createTask(ALICE, { task: makeTask('t1'), lease: { owner: 'w', ttlMs: 30_000 } });
    const before = await store.getTask(ALICE, 't1');
    clock.advance(5000);
    await store.recordParentRenewal(ALICE, 't1');
    const after = await store.getTask(ALICE, 't1');
    expect(after).toEqual(before);
    expect(await store.readEvents(ALICE, 't1', 0)).toEqual([]);
  });

  it('keeps to its scope: another principal or tenant neither renews nor reads the task', async () => {
    const { store } = h();
    await store.createTask(ALICE, { task: makeTask('t1') });
    expect(await store.recordParentRenewal(BOB, 't1')).toBe(false);
    expect(await store.recordParentRenewal(OTHER_TENANT, 't1')).toBe(false);
    expect(await store.lastParentRenewal(ALICE, 't1')).toBeUndefined();
    await store.recordParentRenewal(ALICE, 't1');
    expect(await store.lastParentRenewal(BOB, 't1')).toBeUndefined();
    expect(await store.lastParentRenewal(OTHER_TENANT, 't1')).toBeUndefined();
  });

  it('refuses a finished task and a direct-message record, keeping the last renewal', async () => {
    const { store, clock } = h();
    const task = makeTask('t1');
    await store.createTask(ALICE, { task });
    await store.recordParentRenewal(ALICE, 't1');
    const renewedAt = clock.now();
    await store.commit(ALICE, 't1', {
      expectFence: 1,
      task: withState(task, 'TASK_STATE_COMPLETED'),
      events: [statusEvent(task, 'TASK_STATE_COMPLETED')],
    });
    clock.advance(1000);
    expect(await store.recordParentRenewal(ALICE, 't1')).toBe(false);
    expect(await store.lastParentRenewal(ALICE, 't1')).toBe(renewedAt);

    const m = makeTask('m1');
    await store.createTask(ALICE, { task: m });
    const reply: Message = { messageId: 'r1', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] };
    await store.commit(ALICE, 'm1', { expectFence: 1, task: m, events: [], reply });
    expect(await store.recordParentRenewal(ALICE, 'm1')).toBe(false);
  });

  it('renews an interrupted task (input required): its parent may still be waiting on it', async () => {
    const { store } = h();
    const task = makeTask('t1');
    await store.createTask(ALICE, { task });
    await store.commit(ALICE, 't1', {
      expectFence: 1,
      task: withState(task, 'TASK_STATE_INPUT_REQUIRED'),
      events: [statusEvent(task, 'TASK_STATE_INPUT_REQUIRED')],
    });
    expect(await store.recordParentRenewal(ALICE, 't1')).toBe(true);
  });

  it('goes with its task when retention purges it; a task reusing the id starts unrenewed', async () => {
    const { store, clock } = h();
    const task = makeTask('t1');
    await store.createTask(ALICE, { task });
    await store.recordParentRenewal(ALICE, 't1');
    await store.commit(ALICE, 't1', {
      expectFence: 1,
      task: withState(task, 'TASK_STATE_CANCELED'),
      events: [statusEvent(task, 'TASK_STATE_CANCELED')],
    });
    clock.advance(2 * DAY);
    expect((await store.purgeExpired({ terminalMaxAgeMs: DAY })).tasks).toBe(1);
    expect(await store.lastParentRenewal(ALICE, 't1')).toBeUndefined();
    await store.createTask(ALICE, { task });
    expect(await store.lastParentRenewal(ALICE, 't1')).toBeUndefined();
  });

  it('a renewal taken through one store is read through a peer on the same database', async () => {
    const { store, openPeer, clock } = h();
    // The memory store has no peer: one process is all that can share it, so it reads through itself.
    const peer = openPeer ? await openPeer() : store;
    try {
      await store.createTask(ALICE, { task: makeTask('t1') });
      clock.advance(777);
      expect(await peer.recordParentRenewal(ALICE, 't1')).toBe(true);
      expect(await store.lastParentRenewal(ALICE, 't1')).toBe(clock.now());
    } finally {
      if (peer !== store) await peer.close();
    }
  });
}
