/**
 * The in-memory store's key bounds: the cap a server passes (`maxKeysPerScope`) is per scope, tenant AND
 * principal, and counts live keys only; and the whole store is bounded too (`maxKeys` live keys over every scope,
 * tasks by `maxTasks`), because a tenant is whatever the request path says: a caller inventing tenants must hit
 * a bound, never grow the process (ADR 0026). Refusals write nothing, not even an empty scope.
 */
import { describe, expect, it } from 'vitest';
import type { Scope } from '../../../src/store/scope.js';
import {
  REFUSALS,
  errorOf,
  expectedShape,
  keyedMessage,
  refusalShape,
  send,
  serversClosedAfterEach,
  taskOf,
} from '../../server/duplicate-safety/helpers.js';
import { ALICE, BOB, HOUR, claimOf, keyOf, makeTask, memoryStore, taskIn } from './fixtures.js';

const tenant = (i: number): Scope => ({ tenant: `tenant-${i}`, owner: '' });

describe('memory store: the per-scope cap counts one principal’s live keys', () => {
  it('keyCount is per tenant and principal; one principal at its cap leaves the other free', async () => {
    const { store, clock } = memoryStore();
    const exp = clock.now() + HOUR;
    const cap = { maxKeysPerScope: 2 };
    for (const i of [1, 2]) {
      const r = await store.createTask(ALICE, {
        task: makeTask(`a${i}`),
        claim: claimOf(keyOf(i), 'm', exp),
        ...cap,
      });
      expect(r.outcome).toBe('created');
    }
    expect(store.keyCount(ALICE)).toBe(2);
    expect(store.keyCount(BOB)).toBe(0);
    expect(
      (await store.claimKey(ALICE, { claim: claimOf(keyOf(3), 'm', exp), taskId: 'a1', ...cap })).outcome,
    ).toBe('capacity');
    const bob = await store.createTask(BOB, {
      task: makeTask('b1'),
      claim: claimOf(keyOf(3), 'm', exp),
      ...cap,
    });
    expect(bob.outcome).toBe('created');
    expect(store.keyCount(BOB)).toBe(1);
    expect(store.liveKeyCount).toBe(3);
  });
});

describe('memory store: the whole-store key bound (maxKeys)', () => {
  it('many tenants with a few keys each hit the bound with `capacity`, and the store never grows past it', async () => {
    const { store, clock } = memoryStore({ maxKeys: 10 });
    const exp = clock.now() + HOUR;
    const outcomes: string[] = [];
    for (let i = 0; i < 40; i++) {
      for (let k = 0; k < 3; k++) {
        const id = `t${i}-${k}`;
        const r = await store.createTask(tenant(i), {
          task: makeTask(id),
          claim: claimOf(keyOf(k), 'm', exp),
        });
        outcomes.push(r.outcome);
        if (r.outcome === 'capacity') {
          // Nothing written: no task, no key.
          expect(await store.getTask(tenant(i), id)).toBeUndefined();
          expect(await store.getKey(tenant(i), keyOf(k))).toBeUndefined();
        }
        expect(store.liveKeyCount).toBeLessThanOrEqual(10);
      }
    }
    expect(outcomes.filter((o) => o === 'created')).toHaveLength(10);
    expect(outcomes.slice(10).every((o) => o === 'capacity')).toBe(true);
    expect(store.taskCount).toBe(10);
    // Refused tenants left nothing behind, not even an empty scope.
    expect(store.scopeCount).toBe(4);
    // A continuation key is held to the same bound.
    expect(
      (await store.claimKey(tenant(0), { claim: claimOf(keyOf(9), 'm', exp), taskId: 't0-0' })).outcome,
    ).toBe('capacity');
  });

  it('frees up as keys expire with their tasks gone, without a purge, remembering them as tombstones', async () => {
    const { store, clock } = memoryStore({ maxKeys: 3 });
    for (let i = 0; i < 3; i++) {
      await taskIn(store, tenant(i), `t${i}`, 'TASK_STATE_COMPLETED', {
        key: keyOf(i),
        expiresAt: clock.now() + HOUR,
      });
    }
    const next = () =>
      store.createTask(tenant(9), {
        task: makeTask('t9'),
        claim: claimOf(keyOf(9), 'm', clock.now() + HOUR),
      });
    expect((await next()).outcome).toBe('capacity');
    await store.purgeExpired({ terminalMaxAgeMs: 0 });
    // Tasks gone, keys not yet expired: still live, still counted.
    expect((await next()).outcome).toBe('capacity');
    clock.advance(HOUR);
    expect((await next()).outcome).toBe('created');
    // Only as many keys expire as the new one needs, the oldest first; the rest wait for the sweep or a purge.
    expect(store.liveKeyCount).toBe(3);
    expect(await store.getKey(tenant(0), keyOf(0))).toMatchObject({
      tombstone: true,
      tombstonedAt: clock.now(),
    });
    expect((await store.getKey(tenant(1), keyOf(1)))?.tombstone).toBe(false);
    expect((await store.purgeExpired({ terminalMaxAgeMs: 0 })).keys).toBe(2);
    expect(store.liveKeyCount).toBe(1);
  });

  it('a key whose task is still interrupted stays counted past its expiry: it is still live', async () => {
    const { store, clock } = memoryStore({ maxKeys: 1 });
    await taskIn(store, ALICE, 'asks', 'TASK_STATE_INPUT_REQUIRED', {
      key: keyOf(1),
      expiresAt: clock.now() + HOUR,
    });
    clock.advance(2 * HOUR);
    const r = await store.createTask(BOB, {
      task: makeTask('b'),
      claim: claimOf(keyOf(2), 'm', clock.now() + HOUR),
    });
    expect(r.outcome).toBe('capacity');
    expect((await store.getKey(ALICE, keyOf(1)))?.tombstone).toBe(false);
  });

  it('unkeyed sends to ever new tenants at the task cap are refused without leaving scopes behind', async () => {
    const { store } = memoryStore({ maxTasks: 2 });
    await taskIn(store, tenant(0), 'a', 'TASK_STATE_WORKING');
    await taskIn(store, tenant(1), 'b', 'TASK_STATE_WORKING');
    for (let i = 2; i < 200; i++) {
      expect((await store.createTask(tenant(i), { task: makeTask(`x${i}`) })).outcome).toBe('full');
    }
    expect(store.scopeCount).toBe(2);
    expect(store.taskCount).toBe(2);
  });
});

describe('memory store: the whole-store key bound seen through the server', () => {
  const server = serversClosedAfterEach();

  it('keyed sends from many tenants get 503 + Retry-After (IDEMPOTENCY_CAPACITY) once the store is full', async () => {
    const t = server({ retention: false, memory: { maxKeys: 3 } });
    for (let i = 0; i < 3; i++)
      taskOf(await send(t.ep, 'rest', keyedMessage(`k${i}`), { tenant: `tenant-${i}` }));
    for (let i = 3; i < 8; i++) {
      const e = errorOf(await send(t.ep, 'rest', keyedMessage(`k${i}`), { tenant: `tenant-${i}` }));
      expect(refusalShape(e)).toEqual(expectedShape('rest', REFUSALS.capacity));
      expect(Number(e.retryAfter)).toBeGreaterThan(0);
    }
    expect(t.agent.executions).toHaveLength(3);
    expect(t.memory.liveKeyCount).toBe(3);
    expect(t.memory.scopeCount).toBe(3);
  });
});
