/**
 * A step's retry never outlives the lease (docs/semantics.md §4, ADR 0122), in a real turn: a retry delay from a
 * third of the lease on renews the lease first; when the store cannot renew it, the task ends FAILED with a
 * status message naming the step, and `fn` is not called again.
 */
import { describe, expect, it } from 'vitest';
import { MemoryTaskStore } from '../../../src/store/memory/memory-task-store.js';
import type { TaskStore } from '../../../src/store/task-store.js';
import { ANON, replica, stored, textOf, until } from '../leases/harness.js';
import { ScriptAgent, start } from './step-agent.js';
import { ManualClock } from '../../../src/store/clock.js';

/** The memory store, with `renewLease` failing (a store outage) once `broken` is set. */
function renewalsFailing(store: TaskStore, broken: () => boolean): TaskStore {
  return new Proxy(store, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (typeof value !== 'function') return value;
      if (prop === 'renewLease' && broken()) return () => Promise.reject(new Error('store away'));
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
}

describe('a step retry and the lease', () => {
  it('fails the task naming the step when a retry would outlive a lease the store cannot renew', async () => {
    const clock = new ManualClock();
    const inner = new MemoryTaskStore({ clock });
    let broken = false;
    const store = renewalsFailing(inner, () => broken);
    let calls = 0;
    const agent = new ScriptAgent(false, async (ctx) => {
      await ctx.step(
        'charge',
        () => {
          calls++;
          broken = true;
          throw new Error('payment service away');
        },
        { retry: { maxAttempts: 5, initialDelayMs: 200, jitter: 'none' } },
      );
    });
    const s = { store, clock, replica: () => Promise.resolve(undefined), cleanup: () => inner.close() };
    const server = replica(s, store, agent, { leaseMs: 300 });
    const taskId = await start(server, agent, 'charge 42');
    await until(async () => (await stored(inner, taskId)).task.status.state === 'TASK_STATE_FAILED');
    const task = (await stored(inner, taskId)).task;
    expect(textOf(task.status.message)).toContain('Step charge gave up retrying');
    expect(calls).toBe(1);
    await until(() => agent.endings.length === 1);
    expect(agent.endings[0]).toMatchObject({ name: 'StepError', code: 'STEP_RETRY_ABANDONED' });
    expect(server.logger.lines.map((l) => l.message)).toContain(
      "a step's retry would outlive the task lease, which could not be renewed; failing the task",
    );
    expect(await inner.getStepAttempt(ANON, taskId, 'charge')).toMatchObject({ attempt: 1, state: 'failed' });
    await inner.close();
  });
});
