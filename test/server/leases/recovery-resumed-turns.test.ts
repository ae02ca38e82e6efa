/**
 * Recovery resumes at most `maxResumedTurns` turns at once in one process (ADR 0137): past the bound a sweep
 * leaves the resumable tasks lapsed (`deferred`), and the end of a resumed turn starts the next sweep rather than
 * the interval; a task that ends FAILED needs no slot; two replicas on one store share a backlog, each within its
 * own bound, each task resumed exactly once. On memory, SQLite and PostgreSQL.
 */
import { describe, expect, it } from 'vitest';
import {
  freshStore,
  GatedAgent,
  LEASE_MS,
  replica,
  replicaStore,
  startTurn,
  STORE_KINDS,
  stored,
  until,
  userMessage,
} from './harness.js';

/** `n` tasks whose worker (a replica that is never heard from again) was lost: their leases have lapsed. */
async function lapsedTasks(s: Awaited<ReturnType<typeof freshStore>>, n: number, resumable: boolean) {
  const lostAgent = new GatedAgent(resumable);
  const a = replica(s, s.store, lostAgent);
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await startTurn(a, lostAgent, userMessage(`job ${i}`))).task.id);
  s.clock.advance(LEASE_MS + 1);
  return { ids, release: () => ids.forEach((_, i) => lostAgent.gate(i).open()) };
}

describe.each(STORE_KINDS)('resumed turns bounded per process on %s', (kind) => {
  it('resumes no more than maxResumedTurns at once; a resumed turn that ends lets the next sweep take one more', async () => {
    const s = await freshStore(kind);
    const lost = await lapsedTasks(s, 5, true);
    const agent = new GatedAgent(true);
    // A long interval: what takes the deferred tasks is a slot freeing up, not the timer.
    const b = replica(s, await replicaStore(s), agent, {
      recovery: { maxResumedTurns: 2, intervalMs: 600_000 },
    });
    const startup = await b.recovery!.startup;
    expect(startup).toMatchObject({ resumed: 2, failed: 0, deferred: 3 });
    await agent.nextTurn(1);
    expect(agent.turns).toHaveLength(2);
    expect(b.handler.recovery.resumedTurns).toBe(2);
    const fences = async () => Promise.all(lost.ids.map(async (id) => (await stored(s.store, id)).fence));
    expect((await fences()).sort()).toEqual([1, 1, 1, 2, 2]);
    const warned = b.logger.lines.find((l) => l.message === 'recovered tasks whose worker was lost');
    expect(warned?.fields).toMatchObject({ resumed: 2, deferred: 3 });

    agent.gate(0).open();
    const third = await agent.nextTurn(2);
    expect(third.isResumed).toBe(true);
    expect(b.handler.recovery.resumedTurns).toBe(2);
    expect(agent.turns).toHaveLength(3);

    for (let i = 1; i < 5; i++) agent.gate(i).open();
    await until(async () => (await fences()).every((f) => f === 2));
    await until(async () => {
      const states = await Promise.all(
        lost.ids.map(async (id) => (await stored(s.store, id)).task.status.state),
      );
      return states.every((st) => st === 'TASK_STATE_COMPLETED');
    });
    // Each lost task was resumed exactly once, by this replica.
    expect(agent.turns.map((t) => t.taskId).sort()).toEqual([...lost.ids].sort());
    await until(() => b.handler.recovery.resumedTurns === 0);
    lost.release();
  });

  it('never defers a task that ends FAILED: it needs no slot', async () => {
    const s = await freshStore(kind);
    const lost = await lapsedTasks(s, 4, true);
    const b = replica(s, await replicaStore(s), new GatedAgent(true), {
      recovery: { maxResumedTurns: 1, maxResumes: 0 },
    });
    expect(await b.recovery!.startup).toMatchObject({ resumed: 0, failed: 4, deferred: 0 });
    expect(b.handler.recovery.resumedTurns).toBe(0);
    lost.release();
  });

  it('two replicas share a backlog, each within its bound, each task resumed once', async () => {
    const s = await freshStore(kind);
    const lost = await lapsedTasks(s, 6, true);
    const agentB = new GatedAgent(true);
    const agentC = new GatedAgent(true);
    const b = replica(s, await replicaStore(s), agentB, {
      recovery: { maxResumedTurns: 2, intervalMs: 600_000 },
    });
    expect(await b.recovery!.startup).toMatchObject({ resumed: 2, deferred: 4 });
    const c = replica(s, await replicaStore(s), agentC, {
      recovery: { maxResumedTurns: 3, intervalMs: 600_000 },
    });
    expect(await c.recovery!.startup).toMatchObject({ resumed: 3, deferred: 1 });
    expect(b.handler.recovery.resumedTurns + c.handler.recovery.resumedTurns).toBe(5);
    // The last one goes to whichever frees a slot first.
    agentC.gate(0).open();
    await until(() => agentB.turns.length + agentC.turns.length === 6);
    for (let i = 0; i < 6; i++) {
      agentB.gate(i).open();
      agentC.gate(i).open();
    }
    const resumedIds = [...agentB.turns, ...agentC.turns].map((t) => t.taskId).sort();
    expect(resumedIds).toEqual([...lost.ids].sort());
    await until(async () => {
      const records = await Promise.all(lost.ids.map((id) => stored(s.store, id)));
      return records.every((r) => r.fence === 2 && r.task.status.state === 'TASK_STATE_COMPLETED');
    });
    lost.release();
  });

  it('refuses a maxResumedTurns that is not a whole number of at least 1', async () => {
    const s = await freshStore(kind);
    expect(() => replica(s, s.store, new GatedAgent(true), { recovery: { maxResumedTurns: 0 } })).toThrow(
      /maxResumedTurns/,
    );
  });
});
