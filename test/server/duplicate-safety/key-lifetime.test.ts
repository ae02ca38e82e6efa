/**
 * docs/semantics.md §2 "Defaults", §6: key lifetime with a controllable clock. TTL (default 24 h),
 * tombstones (default 7 days), the expired outcome and its `treat-as-new` switch, a key that outlives its task
 * (TASK_NOT_FOUND after a purge), a key that never expires before its task, and the per-tenant cap
 * (503 + Retry-After; JSON-RPC -32603 IDEMPOTENCY_CAPACITY) with nothing run. Over JSON-RPC and REST.
 */
import { describe, expect, it } from 'vitest';
import { mintKey } from '../../../src/idempotency/index.js';
import { resolveServerOptions } from '../../../src/server/options.js';
import { ManualClock } from '../../../src/store/clock.js';
import {
  ANON,
  BINDINGS,
  DAY,
  HOUR,
  REFUSALS,
  ScriptedAgent,
  TEST_CARD,
  errorOf,
  expectedShape,
  freshKey,
  getTask,
  keyedMessage,
  refusalShape,
  send,
  taskOf,
  userMessage,
  type Binding,
  serversClosedAfterEach,
} from './helpers.js';

describe('defaults', () => {
  it('key TTL 24 h, cap 100,000 keys per tenant, expired keys refused', () => {
    const o = resolveServerOptions({ agent: new ScriptedAgent(), card: TEST_CARD });
    expect(o.keyTtlMs).toBe(24 * HOUR);
    expect(o.maxKeysPerScope).toBe(100_000);
    expect(o.expiredKeys).toBe('refuse');
  });
});

describe.each(BINDINGS)('key lifetime over %s (ManualClock)', (binding: Binding) => {
  const server = serversClosedAfterEach();

  it('default TTL is 24 h: a key whose task was purged is TASK_NOT_FOUND until 24 h, EXPIRED from then on', async () => {
    const t = server();
    const m = keyedMessage('hello');
    taskOf(await send(t.ep, binding, m));
    await t.memory.purgeExpired({ terminalMaxAgeMs: 0 });
    t.clock.advance(24 * HOUR - 1);
    expect(refusalShape(errorOf(await send(t.ep, binding, m)))).toEqual(
      expectedShape(binding, REFUSALS.taskNotFound),
    );
    t.clock.advance(1);
    expect(refusalShape(errorOf(await send(t.ep, binding, m)))).toEqual(
      expectedShape(binding, REFUSALS.keyExpired),
    );
    expect(t.agent.executions).toHaveLength(1);
  });

  it('a key outlives its task: after a purge within the TTL, the retry is TASK_NOT_FOUND and nothing runs', async () => {
    const t = server({ keyTtlMs: HOUR });
    const key = freshKey();
    const m = keyedMessage('hello', key);
    taskOf(await send(t.ep, binding, m));
    t.clock.advance(10 * 60_000);
    const report = await t.memory.purgeExpired({ terminalMaxAgeMs: 60_000 });
    expect(report).toMatchObject({ tasks: 1, keys: 0, tombstones: 0 });
    expect(await t.memory.getKey(ANON, key)).toMatchObject({ tombstone: false });
    expect(refusalShape(errorOf(await send(t.ep, binding, m)))).toEqual(
      expectedShape(binding, REFUSALS.taskNotFound),
    );
    expect(t.agent.executions).toHaveLength(1);
    expect(t.memory.taskCount).toBe(0);
  });

  it('a key never expires before its task: a running task keeps its key far past the TTL', async () => {
    const t = server({ keyTtlMs: 1000 });
    const key = freshKey();
    const m = keyedMessage('hold this', key);
    const first = taskOf(await send(t.ep, binding, m, { returnImmediately: true }));
    t.clock.advance(30 * DAY);
    const report = await t.memory.purgeExpired({ terminalMaxAgeMs: 0, tombstoneMaxAgeMs: 0 });
    expect(report).toMatchObject({ tasks: 0, keys: 0 });
    // The store's own amortised sweep (every 64 creations) must not expire it either.
    for (let i = 0; i < 70; i++) taskOf(await send(t.ep, binding, userMessage(`filler ${i}`)));
    const again = taskOf(await send(t.ep, binding, m, { returnImmediately: true }));
    expect(again.id).toBe(first.id);
    t.agent.release();
    const done = taskOf(await send(t.ep, binding, m));
    expect(done.id).toBe(first.id);
    expect(done.status.state).toBe('TASK_STATE_COMPLETED');
    expect(t.agent.executionsOf(first.id)).toHaveLength(1);
  });

  it('a key past its TTL whose finished task is still retained replays it; once the task is purged it is EXPIRED', async () => {
    const t = server({ keyTtlMs: HOUR });
    const m = keyedMessage('hello');
    const first = taskOf(await send(t.ep, binding, m));
    t.clock.advance(2 * HOUR);
    expect(taskOf(await send(t.ep, binding, m)).id).toBe(first.id);
    const report = await t.memory.purgeExpired({ terminalMaxAgeMs: HOUR });
    expect(report).toMatchObject({ tasks: 1, keys: 1 });
    expect(refusalShape(errorOf(await send(t.ep, binding, m)))).toEqual(
      expectedShape(binding, REFUSALS.keyExpired),
    );
    expect(t.agent.executions).toHaveLength(1);
  });

  it('tombstones last 7 days by default: EXPIRED until then; afterwards a caller-chosen key is unknown again', async () => {
    const t = server({ keyTtlMs: HOUR });
    const key = freshKey();
    const m = keyedMessage('hello', key);
    taskOf(await send(t.ep, binding, m));
    t.clock.advance(HOUR);
    await t.memory.purgeExpired({ terminalMaxAgeMs: 0 });
    expect((await t.memory.getKey(ANON, key))?.tombstone).toBe(true);
    t.clock.advance(7 * DAY - 1);
    expect((await t.memory.purgeExpired({ terminalMaxAgeMs: 0 })).tombstones).toBe(0);
    expect(refusalShape(errorOf(await send(t.ep, binding, m)))).toEqual(
      expectedShape(binding, REFUSALS.keyExpired),
    );
    t.clock.advance(1);
    expect((await t.memory.purgeExpired({ terminalMaxAgeMs: 0 })).tombstones).toBe(1);
    expect(await t.memory.getKey(ANON, key)).toBeUndefined();
    // Its age is no longer known: the send is new.
    expect(taskOf(await send(t.ep, binding, m)).status.state).toBe('TASK_STATE_COMPLETED');
    expect(t.agent.executions).toHaveLength(2);
  });

  it('a time-stamped key stays EXPIRED after its tombstone is gone (its age is in the key)', async () => {
    const t = server({ keyTtlMs: HOUR });
    const m = keyedMessage('hello', mintKey(t.clock.now()));
    taskOf(await send(t.ep, binding, m));
    t.clock.advance(HOUR + 7 * DAY);
    const report = await t.memory.purgeExpired({ terminalMaxAgeMs: 0, tombstoneMaxAgeMs: 0 });
    expect(report.tasks).toBe(1);
    expect(refusalShape(errorOf(await send(t.ep, binding, m)))).toEqual(
      expectedShape(binding, REFUSALS.keyExpired),
    );
    expect(t.agent.executions).toHaveLength(1);
  });

  it('a time-stamped key older than the TTL but still held with its task replays (never EXPIRED before its task)', async () => {
    const t = server({ keyTtlMs: HOUR });
    const m = keyedMessage('hello', mintKey(t.clock.now()));
    const first = taskOf(await send(t.ep, binding, m));
    t.clock.advance(3 * HOUR);
    expect(taskOf(await send(t.ep, binding, m)).id).toBe(first.id);
    expect(t.agent.executions).toHaveLength(1);
  });

  it('the tombstone lifetime is configurable on the store', async () => {
    const t = server({ keyTtlMs: HOUR, memory: { tombstoneTtlMs: 2 * HOUR } });
    const m = keyedMessage('hello');
    taskOf(await send(t.ep, binding, m));
    t.clock.advance(HOUR);
    await t.memory.purgeExpired({ terminalMaxAgeMs: 0 });
    t.clock.advance(2 * HOUR - 1);
    expect((await t.memory.purgeExpired({ terminalMaxAgeMs: 0 })).tombstones).toBe(0);
    t.clock.advance(1);
    expect((await t.memory.purgeExpired({ terminalMaxAgeMs: 0 })).tombstones).toBe(1);
  });

  it('expiredKeys treat-as-new: an expired key runs again as a new task', async () => {
    const t = server({ keyTtlMs: HOUR, expiredKeys: 'treat-as-new' });
    const m = keyedMessage('hello');
    const first = taskOf(await send(t.ep, binding, m));
    t.clock.advance(HOUR);
    await t.memory.purgeExpired({ terminalMaxAgeMs: 0 });
    const second = taskOf(await send(t.ep, binding, m));
    expect(second.id).not.toBe(first.id);
    // ...and the key now belongs to the new task: a retry replays it.
    expect(taskOf(await send(t.ep, binding, m)).id).toBe(second.id);
    expect(t.agent.executions).toHaveLength(2);
  });

  it('expiry reads the server clock, also for a time-stamped key the store never saw', async () => {
    // The server's clock is far from the wall clock (a simulation, a replay of recorded traffic).
    const clock = new ManualClock(Date.UTC(2031, 0, 1));
    const t = server({ clock, keyTtlMs: HOUR });
    const stale = keyedMessage('hello', mintKey(clock.now() - 2 * DAY));
    const e = errorOf(await send(t.ep, binding, stale));
    expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.keyExpired));
    expect(t.agent.executions).toHaveLength(0);
  });

  it('the per-tenant cap: 503 + Retry-After (JSON-RPC -32603 IDEMPOTENCY_CAPACITY), nothing runs; expired keys free it', async () => {
    const t = server({ keyTtlMs: HOUR, maxKeysPerScope: 3 });
    for (let i = 0; i < 3; i++) taskOf(await send(t.ep, binding, keyedMessage(`k${i}`)));
    const refused = keyedMessage('over the cap');
    const e = errorOf(await send(t.ep, binding, refused));
    expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.capacity));
    expect(e.httpStatus).toBe(503);
    expect(Number(e.retryAfter)).toBeGreaterThan(0);
    expect(t.agent.executions).toHaveLength(3);
    expect(t.memory.keyCount(ANON)).toBe(3);
    // Still refused while the keys' tasks exist (a key never expires before its task) ...
    t.clock.advance(HOUR);
    expect(refusalShape(errorOf(await send(t.ep, binding, refused)))).toEqual(
      expectedShape(binding, REFUSALS.capacity),
    );
    // ... and once the tasks are gone the expired keys become tombstones, which never count (ADR 0026).
    await t.memory.purgeExpired({ terminalMaxAgeMs: 0 });
    expect(t.memory.keyCount(ANON)).toBe(0);
    const admitted = taskOf(await send(t.ep, binding, refused));
    expect(admitted.status.state).toBe('TASK_STATE_COMPLETED');
    // The task and its key really are in the store: GetTask finds it and a retry replays it.
    expect(taskOf(await getTask(t.ep, binding, admitted.id)).id).toBe(admitted.id);
    expect(taskOf(await send(t.ep, binding, refused)).id).toBe(admitted.id);
    expect(t.agent.executions).toHaveLength(4);
  });
});
