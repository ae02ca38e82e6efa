/**
 * Contract: push delivery cursors (docs/semantics.md §5, ADR 0045). The event log is the outbox: a commit that
 * appends events gives the task's webhooks work in the same atomic step, each (task, push config) keeps how far
 * delivery got, and every outcome is recorded under the claim for the cursor's next event only.
 */
import { describe, expect, it } from 'vitest';
import type { TaskPushNotificationConfig } from '../../src/protocol/requests.js';
import type { Scope } from '../../src/store/scope.js';
import type { TaskStore } from '../../src/store/task-store.js';
import { ALICE, BOB, DAY, OTHER_TENANT, makeTask, statusEvent, withState } from './fixtures/tasks.js';
import type { MakeStore } from './harness.js';
import { useStore } from './harness.js';

const CLAIM = 30_000;
const H = 'dispatcher-a';

function hook(id: string, url = `https://hooks.example.com/${id}`): TaskPushNotificationConfig {
  return { id, url, token: `tok-${id}` };
}

/** Commits `n` WORKING status events to a task at fence 1. */
async function appendEvents(store: TaskStore, scope: Scope, taskId: string, n: number): Promise<number> {
  const cur = await store.getTask(scope, taskId);
  const task = withState(cur!.task, 'TASK_STATE_WORKING');
  const events = Array.from({ length: n }, (_, i) => statusEvent(task, 'TASK_STATE_WORKING', `e${i}`));
  const res = await store.commit(scope, taskId, { expectFence: 1, task, events });
  if (!res.ok) throw new Error('commit refused');
  return res.record.seq;
}

/** Registers the push cursor tests. */
export function pushDeliveryContract(make: MakeStore): void {
  const h = useStore(make);

  describe('outbox and cursor', () => {
    it('gives an inline config work from the first event, in the commit that stores the events', async () => {
      const { store } = h();
      await store.createTask(ALICE, { task: makeTask('t1'), pushConfigs: [hook('c1')] });
      // No event yet: nothing to deliver.
      expect(await store.claimPushDeliveries(H, CLAIM, 10)).toEqual([]);
      expect(await store.getPushDelivery(ALICE, 't1', 'c1')).toMatchObject({ deliveredSeq: 0, taskSeq: 0 });
      await appendEvents(store, ALICE, 't1', 2);
      const [d, ...rest] = await store.claimPushDeliveries(H, CLAIM, 10);
      expect(rest).toEqual([]);
      expect(d).toMatchObject({
        scope: ALICE,
        taskId: 't1',
        configId: 'c1',
        config: hook('c1'),
        deliveredSeq: 0,
        taskSeq: 2,
        attempts: 0,
        givenUpEvents: 0,
      });
      expect(d!.lastGiveUp).toBeUndefined();
      expect(d!.failingSince).toBeUndefined();
    });

    it('starts a config created later before the first event too, and a replaced config keeps its cursor', async () => {
      const { store } = h();
      await store.createTask(ALICE, { task: makeTask('t1') });
      await appendEvents(store, ALICE, 't1', 3);
      await store.putPushConfig(ALICE, 't1', hook('c1'));
      expect(await store.getPushDelivery(ALICE, 't1', 'c1')).toMatchObject({ deliveredSeq: 0, taskSeq: 3 });
      const [d] = await store.claimPushDeliveries(H, CLAIM, 10);
      expect(d).toMatchObject({ taskId: 't1', deliveredSeq: 0, taskSeq: 3 });
      expect(
        await store.recordPushDelivery(ALICE, 't1', 'c1', H, { kind: 'delivered', seq: 1, claimMs: CLAIM }),
      ).toBe(true);
      await store.putPushConfig(ALICE, 't1', hook('c1', 'https://hooks.example.com/moved'));
      expect(await store.getPushDelivery(ALICE, 't1', 'c1')).toMatchObject({ deliveredSeq: 1, taskSeq: 3 });
      expect((await store.getPushConfig(ALICE, 't1', 'c1'))?.url).toBe('https://hooks.example.com/moved');
    });

    it('moves the cursor one acknowledged event at a time, and only for the holder', async () => {
      const { store } = h();
      await store.createTask(ALICE, { task: makeTask('t1'), pushConfigs: [hook('c1')] });
      await appendEvents(store, ALICE, 't1', 3);
      await store.claimPushDeliveries(H, CLAIM, 10);
      const ack = (seq: number, holder = H) =>
        store.recordPushDelivery(ALICE, 't1', 'c1', holder, { kind: 'delivered', seq, claimMs: CLAIM });
      expect(await ack(2)).toBe(false); // not the next event
      expect(await ack(1, 'dispatcher-b')).toBe(false); // not the holder
      expect(await ack(1)).toBe(true);
      expect(await ack(1)).toBe(true); // a repeat of one that landed (its answer lost): changes nothing
      expect(await ack(2)).toBe(true);
      expect(await ack(1)).toBe(false); // behind the cursor
      expect(await ack(3)).toBe(true);
      expect(await store.getPushDelivery(ALICE, 't1', 'c1')).toMatchObject({ deliveredSeq: 3, taskSeq: 3 });
      await store.recordPushDelivery(ALICE, 't1', 'c1', H, { kind: 'released' });
      // Fully delivered: nothing to claim until the next commit.
      expect(await store.claimPushDeliveries(H, CLAIM, 10)).toEqual([]);
      await appendEvents(store, ALICE, 't1', 1);
      expect(await store.claimPushDeliveries(H, CLAIM, 10)).toMatchObject([{ deliveredSeq: 3, taskSeq: 4 }]);
    });

    it('keeps a failure on the cursor and waits until the retry is due', async () => {
      const { store, clock } = h();
      await store.createTask(ALICE, { task: makeTask('t1'), pushConfigs: [hook('c1')] });
      await appendEvents(store, ALICE, 't1', 1);
      await store.claimPushDeliveries(H, CLAIM, 10);
      const first = clock.now();
      const fail = (retryAt: number) =>
        store.recordPushDelivery(ALICE, 't1', 'c1', H, {
          kind: 'failed',
          seq: 1,
          error: 'HTTP 503',
          retryAt,
        });
      expect(await fail(first + 1000)).toBe(true);
      expect(await store.getPushDelivery(ALICE, 't1', 'c1')).toMatchObject({
        deliveredSeq: 0,
        attempts: 1,
        failingSince: first,
        lastError: 'HTTP 503',
        nextAttemptAt: first + 1000,
      });
      // The claim went with the failure; the retry is not due yet.
      expect(await store.claimPushDeliveries('dispatcher-b', CLAIM, 10)).toEqual([]);
      clock.advance(1000);
      expect(await store.claimPushDeliveries('dispatcher-b', CLAIM, 10)).toMatchObject([{ attempts: 1 }]);
      expect(await fail(clock.now() + 1)).toBe(false); // dispatcher-a no longer holds it
      expect(
        await store.recordPushDelivery(ALICE, 't1', 'c1', 'dispatcher-b', {
          kind: 'failed',
          seq: 1,
          error: 'timeout',
          retryAt: clock.now() + 2000,
        }),
      ).toBe(true);
      // The run of failures started at the first one.
      expect(await store.getPushDelivery(ALICE, 't1', 'c1')).toMatchObject({
        attempts: 2,
        failingSince: first,
        lastError: 'timeout',
      });
    });

    it('gives up one event or the whole backlog, and keeps what it gave up visible', async () => {
      const { store, clock } = h();
      await store.createTask(ALICE, { task: makeTask('t1'), pushConfigs: [hook('c1')] });
      await appendEvents(store, ALICE, 't1', 4);
      await store.claimPushDeliveries(H, CLAIM, 10);
      await store.recordPushDelivery(ALICE, 't1', 'c1', H, {
        kind: 'failed',
        seq: 1,
        error: 'x',
        retryAt: 0,
      });
      await store.claimPushDeliveries(H, CLAIM, 10);
      expect(
        await store.recordPushDelivery(ALICE, 't1', 'c1', H, {
          kind: 'given-up',
          seq: 1,
          through: 'event',
          reason: 'rejected',
          error: 'HTTP 400',
        }),
      ).toBe(true);
      const at = clock.now();
      expect(await store.getPushDelivery(ALICE, 't1', 'c1')).toMatchObject({
        deliveredSeq: 1,
        attempts: 0,
        givenUpEvents: 1,
        lastError: 'HTTP 400',
        lastGiveUp: { fromSeq: 1, throughSeq: 1, at, reason: 'rejected' },
      });
      expect((await store.getPushDelivery(ALICE, 't1', 'c1'))?.failingSince).toBeUndefined();
      // Work is left (2..4), due at once.
      await store.claimPushDeliveries(H, CLAIM, 10);
      clock.advance(5);
      expect(
        await store.recordPushDelivery(ALICE, 't1', 'c1', H, {
          kind: 'given-up',
          seq: 2,
          through: 'backlog',
          reason: 'expired',
          error: 'connection refused',
        }),
      ).toBe(true);
      expect(await store.getPushDelivery(ALICE, 't1', 'c1')).toMatchObject({
        deliveredSeq: 4,
        givenUpEvents: 4,
        lastGiveUp: { fromSeq: 2, throughSeq: 4, at: at + 5, reason: 'expired' },
      });
      expect(await store.claimPushDeliveries(H, CLAIM, 10)).toEqual([]);
      // Later events are delivered as usual.
      await appendEvents(store, ALICE, 't1', 1);
      expect(await store.claimPushDeliveries(H, CLAIM, 10)).toMatchObject([{ deliveredSeq: 4, taskSeq: 5 }]);
    });

    it('keeps one cursor per config and per scope', async () => {
      const { store } = h();
      for (const scope of [ALICE, BOB, OTHER_TENANT]) {
        await store.createTask(scope, { task: makeTask('t1'), pushConfigs: [hook('c1'), hook('c2')] });
      }
      await appendEvents(store, BOB, 't1', 2);
      const claimed = await store.claimPushDeliveries(H, CLAIM, 10);
      expect(claimed.map((d) => [d.scope, d.taskId, d.configId]).sort()).toEqual(
        [
          [BOB, 't1', 'c1'],
          [BOB, 't1', 'c2'],
        ].sort(),
      );
      await store.recordPushDelivery(BOB, 't1', 'c1', H, { kind: 'delivered', seq: 1, claimMs: CLAIM });
      expect(await store.getPushDelivery(BOB, 't1', 'c1')).toMatchObject({ deliveredSeq: 1 });
      expect(await store.getPushDelivery(BOB, 't1', 'c2')).toMatchObject({ deliveredSeq: 0 });
      expect(await store.getPushDelivery(ALICE, 't1', 'c1')).toMatchObject({ deliveredSeq: 0, taskSeq: 0 });
      // Another scope's cursor is not reachable through this one.
      expect(
        await store.recordPushDelivery(ALICE, 't1', 'c2', H, { kind: 'delivered', seq: 1, claimMs: CLAIM }),
      ).toBe(false);
    });

    it('forgets a deleted config: no delivery follows a delete (A2A §3.1.10)', async () => {
      const { store } = h();
      await store.createTask(ALICE, { task: makeTask('t1'), pushConfigs: [hook('c1')] });
      await appendEvents(store, ALICE, 't1', 1);
      expect(await store.deletePushConfig(ALICE, 't1', 'c1')).toBe(true);
      expect(await store.getPushDelivery(ALICE, 't1', 'c1')).toBeUndefined();
      expect(await store.claimPushDeliveries(H, CLAIM, 10)).toEqual([]);
      // Created again under the same id: a new cursor, from the first event.
      await store.putPushConfig(ALICE, 't1', hook('c1'));
      expect(await store.claimPushDeliveries(H, CLAIM, 10)).toMatchObject([{ deliveredSeq: 0, taskSeq: 1 }]);
    });

    it('drops cursors with their task (released claim, purged task)', async () => {
      const { store, clock } = h();
      await store.createTask(ALICE, { task: makeTask('gone'), pushConfigs: [hook('c1')] });
      expect(await store.releaseClaim(ALICE, 'gone', undefined)).toBe(true);
      expect(await store.getPushDelivery(ALICE, 'gone', 'c1')).toBeUndefined();
      await store.createTask(ALICE, { task: makeTask('old'), pushConfigs: [hook('c1')] });
      const cur = (await store.getTask(ALICE, 'old'))!;
      const done = withState(cur.task, 'TASK_STATE_COMPLETED');
      await store.commit(ALICE, 'old', {
        expectFence: 1,
        task: done,
        events: [statusEvent(done, 'TASK_STATE_COMPLETED')],
      });
      clock.advance(2 * DAY);
      await store.purgeExpired({ terminalMaxAgeMs: DAY });
      expect(await store.getPushDelivery(ALICE, 'old', 'c1')).toBeUndefined();
      expect(await store.claimPushDeliveries(H, CLAIM, 10)).toEqual([]);
    });

    it('refuses arguments no store can honour, writing nothing', async () => {
      const { store } = h();
      await store.createTask(ALICE, { task: makeTask('t1'), pushConfigs: [hook('c1')] });
      await appendEvents(store, ALICE, 't1', 1);
      const bad = { code: 'BAD_ARGUMENT' };
      await expect(store.claimPushDeliveries('', CLAIM, 10)).rejects.toMatchObject(bad);
      await expect(store.claimPushDeliveries(H, 0, 10)).rejects.toMatchObject(bad);
      await expect(store.claimPushDeliveries(H, 1.5, 10)).rejects.toMatchObject(bad);
      await expect(store.claimPushDeliveries(H, CLAIM, -1)).rejects.toMatchObject(bad);
      expect(await store.claimPushDeliveries(H, CLAIM, 0)).toEqual([]);
      await store.claimPushDeliveries(H, CLAIM, 10);
      await expect(
        store.recordPushDelivery(ALICE, 't1', 'c1', H, { kind: 'delivered', seq: 0, claimMs: CLAIM }),
      ).rejects.toMatchObject(bad);
      await expect(
        store.recordPushDelivery(ALICE, 't1', 'c1', H, { kind: 'delivered', seq: 1, claimMs: -5 }),
      ).rejects.toMatchObject(bad);
      await expect(
        store.recordPushDelivery(ALICE, 't1', 'c1', '', { kind: 'released' }),
      ).rejects.toMatchObject(bad);
      await expect(
        store.recordPushDelivery(ALICE, 't1', 'c1', H, { kind: 'sending', seq: 1, claimMs: 0 }),
      ).rejects.toMatchObject(bad);
      expect(await store.getPushDelivery(ALICE, 't1', 'c1')).toMatchObject({ deliveredSeq: 0, attempts: 0 });
    });

    it('keeps an error label to a bounded length', async () => {
      const { store } = h();
      await store.createTask(ALICE, { task: makeTask('t1'), pushConfigs: [hook('c1')] });
      await appendEvents(store, ALICE, 't1', 1);
      await store.claimPushDeliveries(H, CLAIM, 10);
      const error = 'e'.repeat(5000);
      await store.recordPushDelivery(ALICE, 't1', 'c1', H, { kind: 'failed', seq: 1, error, retryAt: 0 });
      expect((await store.getPushDelivery(ALICE, 't1', 'c1'))?.lastError).toHaveLength(500);
    });
  });
}
