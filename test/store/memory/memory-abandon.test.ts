/**
 * `purgeExpired` with `interruptedMaxAgeMs` in the in-memory store (docs/semantics.md §6 "Abandoned tasks",
 * ADR 0024): an INPUT_REQUIRED or AUTH_REQUIRED task not written for that long is ended with the shared
 * `abandonedTaskWrite` (fence + 1, one status event), its followers are woken, and from then on it ages like any
 * finished task. Also `tryLead`, which a store used by one process always grants.
 */
import { describe, expect, it } from 'vitest';
import { isTerminalState } from '../../../src/protocol/task-state.js';
import { abandonedTaskWrite } from '../../../src/store/abandon.js';
import type { StoredEvent } from '../../../src/store/records.js';
import { ALICE, DAY, HOUR, keyOf, makeTask, memoryStore, taskIn, withState } from './fixtures.js';

describe('memory store: abandoned interrupted tasks', () => {
  it('ends them with fence + 1 and one event, wakes their followers, and leaves recent or active tasks alone', async () => {
    const { store, clock } = memoryStore();
    const start = clock.now();
    await taskIn(store, ALICE, 'asks', 'TASK_STATE_INPUT_REQUIRED', {
      key: keyOf(1),
      expiresAt: start + HOUR,
    });
    await taskIn(store, ALICE, 'auth', 'TASK_STATE_AUTH_REQUIRED');
    await taskIn(store, ALICE, 'recent', 'TASK_STATE_INPUT_REQUIRED');
    await taskIn(store, ALICE, 'working', 'TASK_STATE_WORKING');
    const before = (await store.getTask(ALICE, 'asks'))!;

    const ac = new AbortController();
    const waited = store.nextRecord(ALICE, 'asks', 0, ac.signal, (r) => isTerminalState(r.task.status.state));
    const watched: StoredEvent[] = [];
    const watching = (async () => {
      for await (const e of store.watch(ALICE, 'asks', 0, ac.signal)) {
        watched.push(e);
        break;
      }
    })();

    clock.advance(10 * DAY);
    const recent = (await store.getTask(ALICE, 'recent'))!;
    await store.commit(ALICE, 'recent', {
      expectFence: 1,
      task: withState(recent.task, 'TASK_STATE_INPUT_REQUIRED'),
      events: [],
    });
    clock.advance(20 * DAY);
    const now = clock.now();
    const report = await store.purgeExpired({ terminalMaxAgeMs: DAY, interruptedMaxAgeMs: 30 * DAY });
    expect(report).toEqual({ tasks: 0, abandoned: 2, keys: 0, tombstones: 0, batches: 1, complete: true });

    const expected = abandonedTaskWrite(before.task, now);
    const ended = (await store.getTask(ALICE, 'asks'))!;
    expect(ended).toMatchObject({ fence: 2, seq: 1, updatedAt: now, task: expected.task });
    expect(await store.readEvents(ALICE, 'asks', 0)).toEqual([{ seq: 1, event: expected.event }]);
    expect(await waited).toBe(ended);
    await watching;
    expect(watched).toEqual([{ seq: 1, event: expected.event }]);
    expect((await store.getTask(ALICE, 'auth'))?.task.status.state).toBe('TASK_STATE_CANCELED');
    expect((await store.getTask(ALICE, 'recent'))?.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect((await store.getTask(ALICE, 'working'))?.task.status.state).toBe('TASK_STATE_WORKING');
    // The old worker's token is stale now.
    const stale = await store.commit(ALICE, 'asks', { expectFence: 1, task: before.task, events: [] });
    expect(stale.ok).toBe(false);
    ac.abort();
  });

  it('then ages them like any finished task: deleted terminalMaxAgeMs after the ending, their keys tombstoned', async () => {
    const { store, clock } = memoryStore();
    await taskIn(store, ALICE, 'asks', 'TASK_STATE_INPUT_REQUIRED', {
      key: keyOf(1),
      expiresAt: clock.now() + HOUR,
    });
    clock.advance(30 * DAY);
    const policy = { terminalMaxAgeMs: DAY, interruptedMaxAgeMs: 30 * DAY };
    expect(await store.purgeExpired(policy)).toMatchObject({ tasks: 0, abandoned: 1, keys: 0 });
    clock.advance(DAY - 1);
    expect(await store.purgeExpired(policy)).toMatchObject({ tasks: 0, abandoned: 0, keys: 0 });
    clock.advance(1);
    expect(await store.purgeExpired(policy)).toMatchObject({ tasks: 1, abandoned: 0, keys: 1 });
    expect(await store.getKey(ALICE, keyOf(1))).toMatchObject({ tombstone: true, tombstonedAt: clock.now() });
  });

  it('counts ended tasks in batches and stops at maxBatches, resuming where it stopped', async () => {
    const { store, clock } = memoryStore();
    for (let i = 0; i < 5; i++) await taskIn(store, ALICE, `asks-${i}`, 'TASK_STATE_INPUT_REQUIRED');
    clock.advance(2 * DAY);
    const policy = { terminalMaxAgeMs: 10 * DAY, interruptedMaxAgeMs: DAY, batchSize: 2 };
    expect(await store.purgeExpired({ ...policy, maxBatches: 1 })).toEqual({
      tasks: 0,
      abandoned: 2,
      keys: 0,
      tombstones: 0,
      batches: 1,
      complete: false,
    });
    expect(await store.purgeExpired(policy)).toMatchObject({ abandoned: 3, complete: true });
  });

  it('keeps interrupted tasks when the policy has no interruptedMaxAgeMs', async () => {
    const { store, clock } = memoryStore();
    await store.createTask(ALICE, { task: makeTask('asks', { state: 'TASK_STATE_INPUT_REQUIRED' }) });
    clock.advance(365 * DAY);
    expect(await store.purgeExpired({ terminalMaxAgeMs: DAY })).toMatchObject({ tasks: 0, abandoned: 0 });
    expect((await store.getTask(ALICE, 'asks'))?.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('treats a task created already interrupted or finished like one that got there by a commit', async () => {
    const { store, clock } = memoryStore({ terminalTaskTtlMs: Number.MAX_SAFE_INTEGER });
    await store.createTask(ALICE, { task: makeTask('asks', { state: 'TASK_STATE_AUTH_REQUIRED' }) });
    await store.createTask(ALICE, { task: makeTask('done', { state: 'TASK_STATE_COMPLETED' }) });
    clock.advance(2 * DAY);
    expect(await store.purgeExpired({ terminalMaxAgeMs: DAY, interruptedMaxAgeMs: DAY })).toMatchObject({
      tasks: 1,
      abandoned: 1,
    });
    expect(await store.getTask(ALICE, 'done')).toBeUndefined();
    expect((await store.getTask(ALICE, 'asks'))?.task.status.state).toBe('TASK_STATE_CANCELED');
  });
});

describe('memory store: tryLead', () => {
  it('grants every role to every holder: one process is the only one using this store', async () => {
    const { store } = memoryStore();
    expect(await store.tryLead('retention', 'a', 1000)).toBe(true);
    expect(await store.tryLead('retention', 'b', 1000)).toBe(true);
  });
});
