/**
 * Tombstones in the in-memory store: kept compactly (a refusal needs only that the key existed, for which message
 * and task, and since when: no digest), never counted against a scope's key cap, and bounded over the whole store on their own; past
 * the bound the oldest goes first (ADR 0026).
 */
import { describe, expect, it } from 'vitest';
import { mintKey } from '../../../src/idempotency/index.js';
import {
  ANON,
  REFUSALS,
  errorOf,
  expectedShape,
  keyedMessage,
  refusalShape,
  send,
  serversClosedAfterEach,
  taskOf,
} from '../../server/duplicate-safety/helpers.js';
import {
  ALICE,
  DAY,
  HOUR,
  claimOf,
  keyOf,
  makeTask,
  memoryStore,
  retry,
  taskIn,
  withState,
} from './fixtures.js';

describe('memory store: what a tombstone keeps', () => {
  it('never computes a deferred digest to make a tombstone, and keeps no digest', async () => {
    const { store, clock } = memoryStore();
    let digests = 0;
    const task = makeTask('t1');
    await store.createTask(ALICE, {
      task,
      claim: {
        key: keyOf(1),
        messageId: 'm-t1',
        digest: () => `d${++digests}`,
        expiresAt: clock.now() + HOUR,
      },
    });
    await store.commit(ALICE, 't1', {
      expectFence: 1,
      task: withState(task, 'TASK_STATE_COMPLETED'),
      events: [],
    });
    clock.advance(2 * HOUR);
    expect(await store.purgeExpired({ terminalMaxAgeMs: HOUR })).toMatchObject({ tasks: 1, keys: 1 });
    expect(digests).toBe(0);
    expect(await store.getKey(ALICE, keyOf(1))).toEqual({
      key: keyOf(1),
      messageId: 'm-t1',
      digest: '',
      taskId: 't1',
      createdAt: clock.now() - 2 * HOUR,
      expiresAt: clock.now() - HOUR,
      tombstone: true,
      tombstonedAt: clock.now(),
    });
    expect(await retry(store, ALICE, keyOf(1))).toBe('expired');
    expect(digests).toBe(0);
  });

  it('does not count tombstones as a scope’s keys', async () => {
    const { store, clock } = memoryStore();
    await taskIn(store, ALICE, 't1', 'TASK_STATE_COMPLETED', {
      key: keyOf(1),
      expiresAt: clock.now() + HOUR,
    });
    expect(store.keyCount(ALICE)).toBe(1);
    clock.advance(2 * HOUR);
    await store.purgeExpired({ terminalMaxAgeMs: HOUR });
    expect(store.keyCount(ALICE)).toBe(0);
    expect(store.liveKeyCount).toBe(0);
    expect(store.tombstoneCount).toBe(1);
  });
});

describe('memory store: the tombstone bound (maxTombstones)', () => {
  it('keeps at most maxTombstones over all scopes; past it the oldest tombstone goes first', async () => {
    const { store, clock } = memoryStore({ maxTombstones: 3 });
    const scopes = Array.from({ length: 6 }, (_, i) => ({ tenant: `tenant-${i}`, owner: 'p' }));
    for (const [i, scope] of scopes.entries()) {
      await taskIn(store, scope, `t${i}`, 'TASK_STATE_COMPLETED', { key: keyOf(i), expiresAt: clock.now() });
      clock.advance(1000);
      await store.purgeExpired({ terminalMaxAgeMs: 0 });
      expect(store.tombstoneCount).toBeLessThanOrEqual(3);
    }
    expect(store.tombstoneCount).toBe(3);
    expect(store.tombstonesDroppedEarly).toBe(3);
    for (const [i, scope] of scopes.entries()) {
      const k = await store.getKey(scope, keyOf(i));
      if (i < 3) expect(k).toBeUndefined();
      else expect(k).toMatchObject({ tombstone: true, taskId: `t${i}` });
    }
    // Scopes left with nothing are dropped with their last tombstone.
    expect(store.scopeCount).toBe(3);
  });

  it('also bounds tombstones made by the amortised sweep and by claims', async () => {
    const { store, clock } = memoryStore({ maxTombstones: 2 });
    for (let i = 0; i < 5; i++) {
      await store.claimKey(ALICE, { claim: claimOf(keyOf(i), 'm', clock.now() + HOUR), taskId: `gone-${i}` });
    }
    clock.advance(2 * HOUR);
    // Each retry meets an expired key whose task is gone and makes its tombstone there and then.
    for (let i = 0; i < 5; i++) {
      expect(await retry(store, ALICE, keyOf(i))).toBe('expired');
      expect(store.tombstoneCount).toBeLessThanOrEqual(2);
    }
    expect(store.tombstonesDroppedEarly).toBe(3);
  });
});

describe('memory store: a tombstone dropped early, seen through the server', () => {
  const server = serversClosedAfterEach();

  it('still refuses a key a2a-once minted (its age is in the key); a caller-chosen key runs again', async () => {
    const t = server({ keyTtlMs: HOUR, retention: false, memory: { maxTombstones: 1 } });
    const minted = keyedMessage('minted', mintKey(t.clock.now()));
    const chosen = keyedMessage('chosen', 'caller-chosen-key-0001');
    const later = keyedMessage('later', 'caller-chosen-key-0002');
    for (const m of [minted, chosen]) taskOf(await send(t.ep, 'jsonrpc', m));
    await t.memory.purgeExpired({ terminalMaxAgeMs: 0 });
    t.clock.advance(2 * HOUR);
    taskOf(await send(t.ep, 'jsonrpc', later));
    await t.memory.purgeExpired({ terminalMaxAgeMs: 0 });
    // Two keys expired into tombstones but the bound keeps one: the older of the two went.
    expect(t.memory.tombstoneCount).toBe(1);
    expect(t.memory.tombstonesDroppedEarly).toBe(1);
    expect(await t.memory.getKey(ANON, 'caller-chosen-key-0001')).toBeDefined();
    // Whichever of the two went, the minted key is refused: its mint time is older than the key TTL.
    expect(refusalShape(errorOf(await send(t.ep, 'jsonrpc', minted)))).toEqual(
      expectedShape('jsonrpc', REFUSALS.keyExpired),
    );
    expect(t.agent.executions).toHaveLength(3);
    // The documented cost (ADR 0026): a caller-chosen key whose tombstone went runs again.
    t.clock.advance(DAY);
    await t.memory.purgeExpired({ terminalMaxAgeMs: 0 });
    expect(t.memory.tombstoneCount).toBe(1);
    expect(await t.memory.getKey(ANON, 'caller-chosen-key-0001')).toBeUndefined();
    taskOf(await send(t.ep, 'jsonrpc', chosen));
    expect(t.agent.executions).toHaveLength(4);
  });
});
