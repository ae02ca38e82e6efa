/**
 * The in-memory store's bounded footprint, seen through the server: a configurable cap on
 * tasks (the oldest terminal task is evicted; with no terminal task to evict, new sends get 503 + Retry-After)
 * and a configurable TTL for terminal tasks (active and interrupted tasks are never expired).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ListTasksResponseSchema } from '../../../src/protocol/schemas/index.js';
import type { A2AServer } from '../../../src/server/index.js';
import { ManualClock } from '../../../src/store/clock.js';
import { MemoryTaskStore } from '../../../src/store/memory/memory-task-store.js';
import { expectRestError, expectRpcError, rpcJson, rpcRequest, uid, userMsg } from '../../helpers/http.js';
import { builtinServer, rest, rpc, rpcOk, sendTask } from './fixtures.js';

const opened: A2AServer[] = [];
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
});

function bounded(agent: 'echo' | 'ask', maxTasks: number, terminalTaskTtlMs: number) {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const store = new MemoryTaskStore({ maxTasks, terminalTaskTtlMs, clock });
  const server = builtinServer(agent, { clock, store });
  opened.push(server);
  return { clock, store, server };
}

describe('task cap (maxTasks)', () => {
  it('keeps at most maxTasks, evicting the oldest terminal tasks first', async () => {
    const { store, server, clock } = bounded('echo', 3, 86_400_000);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      clock.advance(1000);
      ids.push((await sendTask(server, { message: userMsg(uid(), `t${i}`) })).id);
    }
    expect(store.taskCount).toBe(3);
    for (const id of ids.slice(0, 2))
      expectRpcError(await rpc(server, 'GetTask', { id }), -32001, 'TASK_NOT_FOUND');
    for (const id of ids.slice(2)) expect((await rpc(server, 'GetTask', { id })).error).toBeUndefined();
    const listed = await rpcOk(server, 'ListTasks', {}, ListTasksResponseSchema);
    expect(listed.tasks.map((t) => t.id)).toEqual(ids.slice(2).reverse());
    expect(listed.totalSize).toBe(3);
  });

  it('never evicts an active or interrupted task: at the cap a new send gets 503 + Retry-After', async () => {
    const { store, server } = bounded('ask', 2, 86_400_000);
    const a = await sendTask(server, { message: userMsg(uid(), 'a') });
    const b = await sendTask(server, { message: userMsg(uid(), 'b') });
    expect(store.taskCount).toBe(2);
    const res = await server.fetch(rpcRequest('SendMessage', { message: userMsg(uid(), 'c') }));
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expectRpcError(await rpcJson(res), -32603, 'SERVER_BUSY', 'a2a-once');
    const viaRest = await rest(server, 'POST', '/message:send', { message: userMsg(uid(), 'd') });
    expect(viaRest.headers.get('retry-after')).not.toBeNull();
    await expectRestError(viaRest, 503, 'UNAVAILABLE', 'SERVER_BUSY', 'a2a-once');
    for (const t of [a, b]) {
      const got = await rpc(server, 'GetTask', { id: t.id });
      expect((got.result as { status: { state: string } }).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    }
    // Finishing one frees a slot: the next send evicts it instead of being refused.
    await sendTask(server, { message: userMsg(uid(), 'name', { taskId: a.id }) });
    const next = await sendTask(server, { message: userMsg(uid(), 'e') });
    expect(next.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(store.taskCount).toBe(2);
  });
});

describe('terminal task TTL (terminalTaskTtlMs)', () => {
  it('a terminal task past its TTL is no longer served', async () => {
    const { server, clock } = bounded('echo', 1000, 60_000);
    const t = await sendTask(server, { message: userMsg(uid()) });
    clock.advance(30_000);
    expect((await rpc(server, 'GetTask', { id: t.id })).error).toBeUndefined();
    clock.advance(31_000);
    expectRpcError(await rpc(server, 'GetTask', { id: t.id }), -32001, 'TASK_NOT_FOUND');
    const listed = await rpcOk(server, 'ListTasks', {}, ListTasksResponseSchema);
    expect(listed.tasks.map((x) => x.id)).not.toContain(t.id);
  });

  it('expired terminal tasks are dropped from memory as new tasks arrive (bounded footprint)', async () => {
    const { server, clock, store } = bounded('echo', 100_000, 60_000);
    const old: string[] = [];
    for (let i = 0; i < 10; i++)
      old.push((await sendTask(server, { message: userMsg(uid(), `old ${i}`) })).id);
    clock.advance(120_000);
    for (let i = 0; i < 70; i++) await sendTask(server, { message: userMsg(uid(), `new ${i}`) });
    expect(store.taskCount).toBeLessThanOrEqual(70);
    for (const id of old) expectRpcError(await rpc(server, 'GetTask', { id }), -32001, 'TASK_NOT_FOUND');
  });

  it('an interrupted task is not expired by the terminal TTL', async () => {
    const { server, clock } = bounded('ask', 100_000, 60_000);
    const t = await sendTask(server, { message: userMsg(uid(), 'q') });
    clock.advance(3_600_000);
    for (let i = 0; i < 70; i++) await sendTask(server, { message: userMsg(uid(), `n${i}`) });
    const got = await rpc(server, 'GetTask', { id: t.id });
    expect((got.result as { status: { state: string } }).status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });
});
