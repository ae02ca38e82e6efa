/**
 * A claim-and-create that landed, its answer lost, and its lease lapsed while the creator was still retrying
 * (ADR 0052): this process's recovery sweep must leave the task to its creator, whose retry is answered
 * `landedEarlier` and starts the first turn. Failing it as lost instead ended a task FAILED whose agent never ran
 * (seen under real PostgreSQL connection cuts and stalls, test/processes/postgres-faults-under-load.test.ts).
 * On memory, SQLite and PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import type { A2AServer } from '../../../src/server/create-server.js';
import { localCallContext } from '../../../src/server/call-context.js';
import {
  freshStore,
  GatedAgent,
  LEASE_MS,
  replica,
  STORE_KINDS,
  stored,
  taskOf,
  until,
  userMessage,
} from './harness.js';

describe.each(STORE_KINDS)('recovery while a creation is retried on %s', (kind) => {
  it('leaves the task to its creator: the first turn runs, the task is never failed as lost', async () => {
    const s = await freshStore(kind);
    const held: { server?: A2AServer } = {};
    let sweep: Awaited<ReturnType<A2AServer['handler']['recovery']['runOnce']>> | undefined;
    let lose = true;
    // The first claim-and-create lands; before its answer comes back the lease lapses and a sweep runs; then the
    // answer is lost. Admission retries the same write.
    const store = new Proxy(s.store, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop);
        if (typeof value !== 'function') return value;
        const f = (value as (...a: unknown[]) => unknown).bind(target);
        if (prop !== 'createTask') return f;
        return async (...args: unknown[]) => {
          const result = await f(...args);
          if (!lose) return result;
          lose = false;
          s.clock.advance(LEASE_MS + 1);
          sweep = await held.server!.handler.recovery.runOnce();
          throw new Error('Connection terminated unexpectedly (the answer was lost)');
        };
      },
    });
    const agent = new GatedAgent(false); // not resumable: a takeover by recovery would fail the task
    const server = (held.server = replica(s, store, agent));
    const turn = agent.nextTurn(0);
    const res = await server.handler.sendMessage(
      { message: userMessage('created once'), configuration: { returnImmediately: true } },
      localCallContext(),
    );
    const task = taskOf(res);
    expect(sweep).toEqual({ resumed: 0, failed: 0, renewed: 0, skipped: 1, deferred: 0 });
    expect(task.status.state).not.toBe('TASK_STATE_FAILED');
    await turn; // the agent got its first turn
    agent.gate(0).open();
    await until(async () => (await stored(s.store, task.id)).task.status.state === 'TASK_STATE_COMPLETED');
    expect((await stored(s.store, task.id)).fence).toBe(1); // never taken over
  });
});
