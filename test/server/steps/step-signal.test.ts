/**
 * A step attempt's signal in a real turn (docs/semantics.md §4 "Durable steps", ADR 0120): it aborts when the task
 * is cancelled, when the worker's lease is lost (the lease keeper's renewal refused after another replica took
 * the task over) and when the fence moves under a write of the worker; each time the agent's step throws
 * `StaleWriterError` and no result is recorded. On memory, SQLite, PostgreSQL and Redis.
 */
import { describe, expect, it } from 'vitest';
import { StaleWriterError, type AgentContext } from '../../../src/server/agent-executor.js';
import { localCallContext } from '../../../src/server/call-context.js';
import type { StepAttempt } from '../../../src/server/step-options.js';
import { ANON, gate, replica, replicaStore, stored, until } from '../leases/harness.js';
import { ScriptAgent, start } from './step-agent.js';
import { STEP_STORE_KINDS, stepStore } from './step-stores.js';

/** A step whose fn waits for its signal, and what it saw. */
function waitingStep(ctx: AgentContext, seen: StepAttempt[], inFn: () => void): Promise<unknown> {
  return ctx.step('wait', (_key, attempt) => {
    seen.push(attempt);
    inFn();
    return new Promise((_resolve, reject) => {
      attempt.signal.addEventListener('abort', () => reject(attempt.signal.reason as Error), { once: true });
    });
  });
}

describe.each(STEP_STORE_KINDS)('a step attempt signal on %s', (kind) => {
  it('aborts when the task is cancelled', async () => {
    const s = await stepStore(kind);
    const seen: StepAttempt[] = [];
    const inFn = gate();
    const agent = new ScriptAgent(false, async (ctx) => {
      await waitingStep(ctx, seen, () => inFn.open());
    });
    const server = replica(s, s.store, agent);
    const taskId = await start(server, agent, 'cancel me');
    await inFn.promise;
    await server.handler.cancelTask({ id: taskId }, localCallContext());
    await until(() => agent.endings.length === 1);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.signal.aborted).toBe(true);
    expect(seen[0]!.signal.reason).toBeInstanceOf(StaleWriterError);
    expect(agent.endings[0]).toBeInstanceOf(StaleWriterError);
    expect(await s.store.getStep(ANON, taskId, 'wait')).toBeUndefined();
    expect((await stored(s.store, taskId)).task.status.state).toBe('TASK_STATE_CANCELED');
  });

  it("aborts when the worker's lease is lost to a takeover (the keeper's renewal is refused)", async () => {
    const s = await stepStore(kind);
    const leaseMs = 150;
    const seen: StepAttempt[] = [];
    const inFn = gate();
    const lost = new ScriptAgent(true, async (ctx) => {
      await waitingStep(ctx, seen, () => inFn.open());
    });
    const heirRan = gate();
    const heir = new ScriptAgent(true, async (ctx) => {
      heirRan.open();
      await ctx.step('wait', () => 'heir');
    });
    const a = replica(s, s.store, lost, { leaseMs });
    const taskId = await start(a, lost, 'lose my lease');
    await inFn.promise;
    const b = replica(s, await replicaStore(s), heir, { leaseMs });
    // A's keeper may renew between the clock's step and B's look (it ticks in real time): step until B takes over.
    let heirStarted = false;
    void heirRan.promise.then(() => (heirStarted = true));
    await until(async () => {
      s.clock.advance(leaseMs + 1);
      await b.handler.getTask({ id: taskId }, localCallContext());
      await new Promise((r) => setTimeout(r, 5));
      return heirStarted;
    });
    // A's keeper ticks every third of the lease, in real time: its renewal is refused, its signal aborts.
    await until(() => lost.endings.length === 1);
    expect(seen[0]!.signal.aborted).toBe(true);
    expect(lost.endings[0]).toBeInstanceOf(StaleWriterError);
    await until(async () => (await stored(s.store, taskId)).task.status.state === 'TASK_STATE_COMPLETED');
    expect((await s.store.getStep(ANON, taskId, 'wait'))?.result).toBe('heir');
  });

  it('aborts when the fence moved under a write the worker made while fn ran', async () => {
    const s = await stepStore(kind);
    const seen: StepAttempt[] = [];
    const inFn = gate();
    const writeNow = gate();
    const agent = new ScriptAgent(true, async (ctx) => {
      const step = waitingStep(ctx, seen, () => inFn.open());
      await writeNow.promise;
      // Another branch of the turn writes: the store refuses it (the fence moved), the worker stops.
      await Promise.allSettled([ctx.artifact({ parts: [{ text: 'late' }] }).then(() => ctx.flush())]);
      await step;
    });
    const server = replica(s, s.store, agent);
    const taskId = await start(server, agent, 'fence me');
    await inFn.promise;
    const cur = await stored(s.store, taskId);
    // Another worker took the task over (a takeover raises the fence), with no lease this one could see lapse.
    const moved = await s.store.commit(ANON, taskId, {
      expectFence: cur.fence,
      nextFence: cur.fence + 1,
      task: cur.task,
      events: [],
    });
    expect(moved.ok).toBe(true);
    writeNow.open();
    await until(() => agent.endings.length === 1);
    expect(seen[0]!.signal.aborted).toBe(true);
    expect(seen[0]!.signal.reason).toBeInstanceOf(StaleWriterError);
    expect(agent.endings[0]).toBeInstanceOf(StaleWriterError);
    expect(await s.store.getStep(ANON, taskId, 'wait')).toBeUndefined();
  });
});
