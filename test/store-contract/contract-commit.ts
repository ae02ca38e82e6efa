/** Contract: commit (fence and seq compare-and-set), events and their sequence numbers, push configs. */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../src/protocol/model.js';
import { ALICE, BOB, makeTask, statusEvent, withState } from './fixtures/tasks.js';
import type { MakeStore } from './harness.js';
import { useStore } from './harness.js';

/** Registers the commit, event and push-config tests. */
export function commitContract(make: MakeStore): void {
  const h = useStore(make);

  describe('commit', () => {
    it('applies a write at the expected fence and numbers its events 1, 2, ...', async () => {
      const { store, clock } = h();
      const task = makeTask('t1');
      const created = clock.now();
      await store.createTask(ALICE, { task });
      clock.advance(500);
      const working = withState(task, 'TASK_STATE_WORKING', '2026-01-01T00:00:01.000Z');
      const e1 = statusEvent(task, 'TASK_STATE_WORKING', 'a');
      const e2 = statusEvent(task, 'TASK_STATE_WORKING', 'b');
      const r = await store.commit(ALICE, 't1', { expectFence: 1, task: working, events: [e1, e2] });
      const record = {
        task: working,
        kind: 'task',
        fence: 1,
        seq: 2,
        createdAt: created,
        updatedAt: created + 500,
      };
      expect(r).toEqual({ ok: true, record });
      expect(await store.getTask(ALICE, 't1')).toEqual(record);
      expect(await store.readEvents(ALICE, 't1', 0)).toEqual([
        { seq: 1, event: e1 },
        { seq: 2, event: e2 },
      ]);
      expect(await store.readEvents(ALICE, 't1', 1)).toEqual([{ seq: 2, event: e2 }]);
      expect(await store.readEvents(ALICE, 't1', 2)).toEqual([]);
      const e3 = statusEvent(task, 'TASK_STATE_COMPLETED');
      const r2 = await store.commit(ALICE, 't1', {
        expectFence: 1,
        expectSeq: 2,
        task: working,
        events: [e3],
      });
      expect(r2.ok && r2.record.seq).toBe(3);
      expect((await store.readEvents(ALICE, 't1', 0)).map((e) => e.seq)).toEqual([1, 2, 3]);
    });

    it('refuses a stale fence or a moved seq and appends nothing', async () => {
      const { store } = h();
      const task = makeTask('t1');
      await store.createTask(ALICE, { task });
      await store.commit(ALICE, 't1', {
        expectFence: 1,
        task,
        events: [statusEvent(task, 'TASK_STATE_WORKING')],
      });
      const before = await store.getTask(ALICE, 't1');
      const done = withState(task, 'TASK_STATE_COMPLETED');
      const ev = [statusEvent(task, 'TASK_STATE_COMPLETED')];
      expect(await store.commit(ALICE, 't1', { expectFence: 2, task: done, events: ev })).toEqual({
        ok: false,
        current: before,
      });
      expect(
        await store.commit(ALICE, 't1', { expectFence: 1, expectSeq: 0, task: done, events: ev }),
      ).toEqual({
        ok: false,
        current: before,
      });
      expect(await store.getTask(ALICE, 't1')).toEqual(before);
      expect(await store.readEvents(ALICE, 't1', 0)).toHaveLength(1);
    });

    it('takes a task over with nextFence, after which the old fence is refused', async () => {
      const { store } = h();
      const task = makeTask('t1');
      await store.createTask(ALICE, { task });
      const r = await store.commit(ALICE, 't1', { expectFence: 1, nextFence: 2, task, events: [] });
      expect(r.ok && r.record.fence).toBe(2);
      expect((await store.commit(ALICE, 't1', { expectFence: 1, task, events: [] })).ok).toBe(false);
      expect((await store.commit(ALICE, 't1', { expectFence: 2, task, events: [] })).ok).toBe(true);
    });

    it('refuses a write to a missing task or across scopes', async () => {
      const { store } = h();
      const task = makeTask('t1');
      await store.createTask(ALICE, { task });
      expect(await store.commit(ALICE, 'nope', { expectFence: 1, task, events: [] })).toEqual({
        ok: false,
        current: undefined,
      });
      expect(await store.commit(BOB, 't1', { expectFence: 1, task, events: [] })).toEqual({
        ok: false,
        current: undefined,
      });
      expect(await store.readEvents(BOB, 't1', 0)).toEqual([]);
      expect(await store.readEvents(ALICE, 'nope', 0)).toEqual([]);
    });

    it('turns the record into a message kind with its reply, kept by later writes', async () => {
      const { store } = h();
      const task = makeTask('t1');
      await store.createTask(ALICE, { task });
      const reply: Message = { messageId: 'r1', role: 'ROLE_AGENT', parts: [{ text: 'hi' }] };
      const r = await store.commit(ALICE, 't1', { expectFence: 1, task, events: [], reply });
      expect(r.ok && r.record).toMatchObject({ kind: 'message', reply });
      await store.commit(ALICE, 't1', { expectFence: 1, task, events: [] });
      expect(await store.getTask(ALICE, 't1')).toMatchObject({ kind: 'message', reply });
      expect((await store.listTasks(ALICE, { pageSize: 10 })).totalSize).toBe(0);
    });
  });

  describe('push configs', () => {
    it('puts, replaces by id (keeping its place), gets, lists and deletes', async () => {
      const { store } = h();
      await store.createTask(ALICE, { task: makeTask('t1') });
      const p1 = { id: 'p1', taskId: 't1', url: 'https://hooks.example/1' };
      const p2 = {
        id: 'p2',
        taskId: 't1',
        url: 'https://hooks.example/2',
        authentication: { scheme: 'Bearer', credentials: 'c' },
      };
      const p1b = { ...p1, url: 'https://hooks.example/1b', token: 't' };
      await store.putPushConfig(ALICE, 't1', p1);
      await store.putPushConfig(ALICE, 't1', p2);
      await store.putPushConfig(ALICE, 't1', p1b);
      expect(await store.getPushConfig(ALICE, 't1', 'p1')).toEqual(p1b);
      expect(await store.listPushConfigs(ALICE, 't1')).toEqual([p1b, p2]);
      expect(await store.deletePushConfig(ALICE, 't1', 'p1')).toBe(true);
      expect(await store.deletePushConfig(ALICE, 't1', 'p1')).toBe(false);
      expect(await store.getPushConfig(ALICE, 't1', 'p1')).toBeUndefined();
      expect(await store.listPushConfigs(ALICE, 't1')).toEqual([p2]);
    });

    it('ignores configs for missing tasks, configs without id, and other scopes', async () => {
      const { store } = h();
      await store.createTask(ALICE, { task: makeTask('t1') });
      await store.putPushConfig(ALICE, 'nope', { id: 'p1', url: 'https://hooks.example/1' });
      await store.putPushConfig(ALICE, 't1', { url: 'https://hooks.example/no-id' });
      await store.putPushConfig(BOB, 't1', { id: 'p1', url: 'https://hooks.example/1' });
      expect(await store.getPushConfig(ALICE, 'nope', 'p1')).toBeUndefined();
      expect(await store.listPushConfigs(ALICE, 't1')).toEqual([]);
      expect(await store.listPushConfigs(BOB, 't1')).toEqual([]);
      expect(await store.deletePushConfig(BOB, 't1', 'p1')).toBe(false);
    });
  });
}
