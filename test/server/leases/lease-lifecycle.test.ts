/**
 * The worker lease over a turn's life (docs/semantics.md §4, ADR 0037): the first turn's lease comes with
 * `createTask` and a continuation's with its admitting commit, both without a store round trip of their own;
 * it is renewed in the background only for turns that outlive a third of it; the turn's final write clears
 * it; and a renewal the store refuses stops the worker like a refused write. On memory, SQLite, PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import { StaleWriterError } from '../../../src/server/agent-executor.js';
import { localCallContext } from '../../../src/server/call-context.js';
import { createA2AServer } from '../../../src/server/create-server.js';
import type { TaskStore } from '../../../src/store/task-store.js';
import {
  ANON,
  freshStore,
  GatedAgent,
  LEASE_MS,
  replica,
  replicaStore,
  startTurn,
  STORE_KINDS,
  stored,
  taskOf,
  until,
  userMessage,
} from './harness.js';

/** Counts the calls made on a store, by method. */
function counting(store: TaskStore): { store: TaskStore; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const proxy = new Proxy(store, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.set(String(prop), (calls.get(String(prop)) ?? 0) + 1);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: proxy, calls };
}

describe.each(STORE_KINDS)('worker leases on %s', (kind) => {
  it("takes the first turn's lease with the task: owner names the process and the turn, expiry now + lease", async () => {
    const s = await freshStore(kind);
    const agent = new GatedAgent(false);
    const a = replica(s, s.store, agent);
    const b = replica(s, await replicaStore(s), agent);
    const one = await startTurn(a, agent, userMessage('first'));
    const two = await startTurn(b, agent, userMessage('second'));
    const leaseA = (await stored(s.store, one.task.id)).lease;
    const leaseB = (await stored(s.store, two.task.id)).lease;
    expect(leaseA?.expiresAt).toBe(s.clock.now() + LEASE_MS);
    expect(leaseA?.owner).toMatch(/#1$/);
    expect(leaseB?.owner).toMatch(/#1$/);
    expect(leaseA?.owner).not.toBe(leaseB?.owner); // two processes, two owners
    agent.gate(0).open();
    agent.gate(1).open();
    await until(async () => (await stored(s.store, one.task.id)).lease === undefined);
    await until(async () => (await stored(s.store, two.task.id)).lease === undefined);
  });

  it("clears the lease with the turn's final write, and a continuation's admitting commit grants the next", async () => {
    const s = await freshStore(kind);
    const agent = new GatedAgent(false, async (ctx) => {
      if (ctx.isContinuation) await ctx.complete('thanks');
      else await ctx.requireInput('which colour?');
    });
    const a = replica(s, s.store, agent);
    const { task } = await startTurn(a, agent, userMessage('paint it'));
    agent.gate(0).open();
    await until(async () => (await stored(s.store, task.id)).task.status.state !== 'TASK_STATE_WORKING');
    const interrupted = await stored(s.store, task.id);
    expect(interrupted.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(interrupted.lease).toBeUndefined();

    s.clock.advance(5);
    const next = await startTurn(a, agent, userMessage('blue', { taskId: task.id }));
    const continued = await stored(s.store, next.task.id);
    expect(continued.fence).toBe(2);
    expect(continued.lease?.owner).toMatch(/#2$/);
    expect(continued.lease?.expiresAt).toBe(s.clock.now() + LEASE_MS);
    agent.gate(1).open();
    await until(async () => (await stored(s.store, task.id)).task.status.state === 'TASK_STATE_COMPLETED');
    expect((await stored(s.store, task.id)).lease).toBeUndefined();
  });

  it('clears the lease when the task is cancelled', async () => {
    const s = await freshStore(kind);
    const agent = new GatedAgent(false);
    const a = replica(s, s.store, agent);
    const { task } = await startTurn(a, agent, userMessage('cancel me'));
    await a.handler.cancelTask({ id: task.id }, localCallContext());
    const record = await stored(s.store, task.id);
    expect(record.task.status.state).toBe('TASK_STATE_CANCELED');
    expect(record.lease).toBeUndefined();
    agent.gate(0).open();
  });

  it('adds no store round trip to a send: the lease rides on writes that happen anyway', async () => {
    const s = await freshStore(kind);
    const { store, calls } = counting(s.store);
    const agent = new GatedAgent(false);
    agent.gate(0).open();
    const a = replica(s, store, agent);
    const task = taskOf(await a.handler.sendMessage({ message: userMessage('quick') }, localCallContext()));
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(calls.get('createTask')).toBe(1);
    // WORKING, the artifact, COMPLETED: the agent's own writes and the runner's, made in one burst, so stored as
    // one commit (ADR 0048), and nothing more.
    expect(calls.get('commit')).toBe(1);
    for (const m of ['renewLease', 'findLapsedLeases', 'recordStep', 'getStep'])
      expect(calls.get(m) ?? 0).toBe(0);
  });

  it('renews the lease in the background while a turn outlives a third of it', async () => {
    const s = await freshStore(kind);
    const agent = new GatedAgent(false);
    // A 90 ms lease renews every 30 ms of wall time; the ManualClock decides when it would lapse.
    const a = replica(s, s.store, agent, { leaseMs: 90 });
    const { task, turn } = await startTurn(a, agent, userMessage('long job'));
    const granted = (await stored(s.store, task.id)).lease!.expiresAt;
    s.clock.advance(80);
    await until(async () => (await stored(s.store, task.id)).lease!.expiresAt > granted);
    expect((await stored(s.store, task.id)).lease!.expiresAt).toBe(s.clock.now() + 90);
    s.clock.advance(80); // past the first grant: only the renewal keeps the task
    await until(async () => (await stored(s.store, task.id)).lease!.expiresAt > s.clock.now());
    const b = replica(s, await replicaStore(s), new GatedAgent(false));
    expect(await b.handler.recovery.runOnce()).toEqual({
      resumed: 0,
      failed: 0,
      renewed: 0,
      skipped: 0,
      deferred: 0,
    });
    expect((await stored(s.store, task.id)).fence).toBe(1);
    expect(turn.ctx.signal.aborted).toBe(false);
    agent.gate(0).open();
    await until(async () => (await stored(s.store, task.id)).task.status.state === 'TASK_STATE_COMPLETED');
  });

  it('stops the worker when a renewal is refused, as a refused write would', async () => {
    const s = await freshStore(kind);
    const agent = new GatedAgent(false);
    const a = replica(s, s.store, agent, { leaseMs: 60 });
    const { task, turn } = await startTurn(a, agent, userMessage('taken away'));
    // Another replica took the task over (fence + 1, its own lease); this worker has not written since.
    const cur = await stored(s.store, task.id);
    const other = await replicaStore(s);
    const took = await other.commit(ANON, task.id, {
      expectFence: cur.fence,
      expectSeq: cur.seq,
      nextFence: cur.fence + 1,
      task: cur.task,
      events: [],
      lease: { owner: 'another-process#2', ttlMs: 60 },
    });
    expect(took.ok).toBe(true);
    await until(() => turn.ctx.signal.aborted);
    expect(turn.ctx.signal.reason).toBeInstanceOf(StaleWriterError);
    agent.gate(0).open();
    await until(() => agent.endings.length === 1);
    expect(agent.endings[0]).toBeInstanceOf(StaleWriterError);
    expect((await stored(s.store, task.id)).lease?.owner).toBe('another-process#2');
    expect(a.logger.lines.some((l) => l.message === 'a task lease was lost; stopping its worker')).toBe(true);
  });
});

describe('the options of leases, recovery and steps', () => {
  const base = {
    agent: new GatedAgent(false),
    card: { name: 'x', description: 'x' },
    retention: false,
  } as const;

  it('defaults to 30 s', () => {
    expect(createA2AServer({ ...base, recovery: false }).handler.options.leaseMs).toBe(30_000);
  });

  it.each([0, -5, 1.5, Number.NaN, 5])('refuses leaseMs %s with a RangeError', (leaseMs) => {
    expect(() => createA2AServer({ ...base, recovery: false, leaseMs })).toThrow(RangeError);
  });

  it('runs recovery every half lease by default, and takes an interval of its own', async () => {
    const byDefault = createA2AServer({ ...base, leaseMs: 1000 });
    const own = createA2AServer({ ...base, recovery: { intervalMs: 70 } });
    expect(byDefault.recovery?.intervalMs).toBe(500);
    expect(own.recovery?.intervalMs).toBe(70);
    await byDefault.close();
    await own.close();
  });

  it.each([
    [{ recovery: { intervalMs: 0 } }, /intervalMs/],
    [{ recovery: { maxResumes: -1 } }, /maxResumes/],
    [{ recovery: { maxResumes: 1.5 } }, /maxResumes/],
    [{ recovery: { batchSize: 0 } }, /batchSize/],
    [{ maxStepResultBytes: 0 }, /maxStepResultBytes/],
    [{ maxStepResultBytes: 1.5 }, /maxStepResultBytes/],
  ])('refuses %j with a RangeError naming the option', (extra, message) => {
    expect(() => createA2AServer({ ...base, ...extra })).toThrow(message);
    expect(() => createA2AServer({ ...base, ...extra })).toThrow(RangeError);
  });
});
