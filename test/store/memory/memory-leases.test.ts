/**
 * The in-memory store's side of worker leases and durable steps (ADR 0036), beyond the shared contract: running
 * leased tasks sit in a queue by lease expiry, so a renewal moves a task in it and a task that goes leaves it;
 * task ids are unique within a scope (a second create is refused as in the SQL stores, unless the first is gone
 * past its TTL); a step's result is handed out as a fresh copy every time.
 */
import { describe, expect, it } from 'vitest';
import { ALICE, BOB, makeTask, memoryStore, userMessage, withState } from './fixtures.js';

const TTL = 1000;

describe('memory store: the queue of leased running tasks', () => {
  it('follows renewals and forgets tasks that finish, go interrupted or are released', async () => {
    const { store, clock } = memoryStore();
    const start = clock.now();
    for (const [id, ttlMs] of [
      ['a1', TTL],
      ['a2', 2 * TTL],
      ['a3', 3 * TTL],
      ['a4', 4 * TTL],
    ] as const) {
      await store.createTask(ALICE, { task: makeTask(id), lease: { owner: `w-${id}`, ttlMs } });
    }
    expect(await store.renewLease(ALICE, 'a1', 1, 'w-a1', 10 * TTL)).toBe(true);
    const a3 = makeTask('a3');
    await store.commit(ALICE, 'a3', {
      expectFence: 1,
      task: withState(a3, 'TASK_STATE_INPUT_REQUIRED'),
      events: [],
    });
    expect(await store.releaseClaim(ALICE, 'a4', undefined)).toBe(true);
    clock.set(start + 5 * TTL);
    expect((await store.findLapsedLeases(10)).map((t) => t.taskId)).toEqual(['a2']);
    clock.set(start + 10 * TTL);
    expect((await store.findLapsedLeases(10)).map((t) => t.taskId)).toEqual(['a2', 'a1']);
    // Back to WORKING under its old lease: lapsed since 3 * TTL, so first in line now.
    await store.commit(ALICE, 'a3', {
      expectFence: 1,
      task: withState(a3, 'TASK_STATE_WORKING'),
      events: [],
    });
    expect((await store.findLapsedLeases(10)).map((t) => t.taskId)).toEqual(['a2', 'a3', 'a1']);
    const a2 = makeTask('a2');
    await store.commit(ALICE, 'a2', {
      expectFence: 1,
      task: withState(a2, 'TASK_STATE_COMPLETED'),
      events: [],
    });
    expect((await store.findLapsedLeases(10)).map((t) => t.taskId)).toEqual(['a3', 'a1']);
  });
});

describe('memory store: task ids are unique within a scope', () => {
  it('refuses a second create of an id with TASK_EXISTS, writing nothing; other scopes are apart', async () => {
    const { store } = memoryStore();
    await store.createTask(ALICE, { task: makeTask('t1') });
    await expect(
      // Another send's task under the same id (its own first message): not a retry of the first creation.
      store.createTask(ALICE, {
        task: { ...makeTask('t1', { state: 'TASK_STATE_WORKING' }), history: [userMessage('m-other')] },
      }),
    ).rejects.toMatchObject({
      code: 'TASK_EXISTS',
    });
    expect((await store.getTask(ALICE, 't1'))?.task.status.state).toBe('TASK_STATE_SUBMITTED');
    expect(store.taskCount).toBe(1);
    expect((await store.createTask(BOB, { task: makeTask('t1') })).outcome).toBe('created');
  });

  it('accepts the id again once its task is past the terminal TTL, gone for every reader', async () => {
    const { store, clock } = memoryStore({ terminalTaskTtlMs: TTL });
    const t1 = makeTask('t1');
    await store.createTask(ALICE, { task: t1 });
    await store.commit(ALICE, 't1', {
      expectFence: 1,
      task: withState(t1, 'TASK_STATE_COMPLETED'),
      events: [],
    });
    clock.advance(TTL);
    expect((await store.createTask(ALICE, { task: t1 })).outcome).toBe('created');
    expect(await store.getTask(ALICE, 't1')).toMatchObject({ fence: 1, seq: 0, task: t1 });
    expect(store.taskCount).toBe(1);
  });
});

describe('memory store: durable steps', () => {
  it('hands every reader its own copy of the result', async () => {
    const { store } = memoryStore();
    await store.createTask(ALICE, { task: makeTask('t1') });
    await store.recordStep(ALICE, 't1', { name: 's', fence: 1, result: { list: [1, 2] } });
    const first = await store.getStep(ALICE, 't1', 's');
    (first?.result as { list: number[] }).list.push(3);
    expect((await store.getStep(ALICE, 't1', 's'))?.result).toEqual({ list: [1, 2] });
  });
});
