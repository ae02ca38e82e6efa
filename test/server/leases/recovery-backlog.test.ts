/**
 * A start-up backlog of lost tasks (ADR 0130): a sweep takes the tasks of a batch over several at once, bounded by
 * `concurrency`, each exactly once; a store error ends the sweep once the takeovers in flight have settled, and the
 * next sweep finishes the job. On memory, SQLite and PostgreSQL, the store's commits counted as they run.
 */
import { describe, expect, it } from 'vitest';
import type { TaskStore } from '../../../src/store/task-store.js';
import {
  freshStore,
  GatedAgent,
  LEASE_MS,
  replica,
  replicaStore,
  startTurn,
  STORE_KINDS,
  stored,
  userMessage,
} from './harness.js';

const TASKS = 40;

/**
 * `store`, its commits counted while in flight (the most at once is kept) and those that landed, the next commit
 * failing when told, and its reads of single tasks counted (a sweep needs none: the listing carries the records).
 */
function watched(store: TaskStore) {
  const seen = { inFlight: 0, most: 0, commits: 0, landed: 0, gets: 0, failNextCommit: false };
  const proxy = new Proxy(store, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (typeof value !== 'function') return value;
      const f = (value as (...a: unknown[]) => unknown).bind(target);
      if (prop === 'commit') {
        return async (...args: unknown[]) => {
          seen.inFlight++;
          seen.most = Math.max(seen.most, seen.inFlight);
          try {
            if (seen.failNextCommit) {
              seen.failNextCommit = false;
              throw new Error('the store went away for a moment');
            }
            const r = (await f(...args)) as { ok: boolean };
            if (r.ok) seen.landed++;
            return r;
          } finally {
            seen.inFlight--;
            seen.commits++;
          }
        };
      }
      if (prop === 'getTask') {
        return (...args: unknown[]) => {
          seen.gets++;
          return f(...args);
        };
      }
      return f;
    },
  });
  return { store: proxy, seen };
}

describe.each(STORE_KINDS)('recovery of a backlog of lost tasks on %s', (kind) => {
  it('takes a batch over several at once, never more than its concurrency, each task exactly once', async () => {
    const s = await freshStore(kind);
    const lostAgent = new GatedAgent(false);
    const a = replica(s, s.store, lostAgent);
    const ids: string[] = [];
    for (let i = 0; i < TASKS; i++)
      ids.push((await startTurn(a, lostAgent, userMessage(`job ${i}`))).task.id);

    s.clock.advance(LEASE_MS + 1);
    const { store, seen } = watched(await replicaStore(s));
    const b = replica(s, store, new GatedAgent(false), { recovery: { batchSize: 15, concurrency: 4 } });
    expect(await b.recovery?.startup).toEqual({
      resumed: 0,
      failed: TASKS,
      renewed: 0,
      skipped: 0,
      deferred: 0,
      stillLeased: { held: 0 },
    });
    expect(seen.commits).toBe(TASKS);
    // Each takeover is built from the record the listing returned (ADR 0131): no task is read again.
    expect(seen.gets).toBe(0);
    expect(seen.most).toBeGreaterThan(1);
    expect(seen.most).toBeLessThanOrEqual(4);
    for (const id of ids) {
      const record = await stored(s.store, id);
      expect(record.task.status.state).toBe('TASK_STATE_FAILED');
      expect(record.fence).toBe(2); // one takeover each
    }
    for (let i = 0; i < TASKS; i++) lostAgent.gate(i).open();
  });

  it('ends a sweep at a store error once the takeovers in flight settle; the next sweep finishes', async () => {
    const s = await freshStore(kind);
    const lostAgent = new GatedAgent(false);
    const a = replica(s, s.store, lostAgent);
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push((await startTurn(a, lostAgent, userMessage(`job ${i}`))).task.id);

    s.clock.advance(LEASE_MS + 1);
    const { store, seen } = watched(await replicaStore(s));
    // No retry budget: the takeover whose commit fails throws at once.
    const b = replica(s, store, new GatedAgent(false), { recovery: false, storeWriteBudgetMs: 0 });
    seen.failNextCommit = true;
    await expect(b.handler.recovery.runOnce()).rejects.toThrow(/went away/);
    expect(seen.inFlight).toBe(0); // nothing left running behind the error
    const taken = seen.landed;
    expect(taken).toBeLessThan(12);

    const second = await b.handler.recovery.runOnce();
    expect(second.failed).toBe(12 - taken);
    for (const id of ids) expect((await stored(s.store, id)).fence).toBe(2);
    for (let i = 0; i < 12; i++) lostAgent.gate(i).open();
  });

  it('leaves a task the lost worker wrote to after it was listed: the takeover from the listed record is refused', async () => {
    const s = await freshStore(kind);
    const lostAgent = new GatedAgent(false);
    const a = replica(s, s.store, lostAgent);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await startTurn(a, lostAgent, userMessage(`job ${i}`))).task.id);

    s.clock.advance(LEASE_MS + 1);
    const store = await replicaStore(s);
    let late: { id: string; seq: number } | undefined;
    // Between the listing and the takeovers, the "lost" worker writes once more to the first listed task (its
    // lease is not renewed: the task stays lapsed), so the record the listing returned is one write behind.
    const racing = new Proxy(store, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop);
        if (typeof value !== 'function') return value;
        if (prop !== 'findLapsedLeases') return (value as (...a: unknown[]) => unknown).bind(target);
        return async (limit: number) => {
          const listed = await target.findLapsedLeases(limit);
          const first = listed[0];
          if (late === undefined && first !== undefined) {
            const { record } = first;
            const update = {
              taskId: record.task.id,
              contextId: record.task.contextId ?? '',
              status: {
                state: 'TASK_STATE_WORKING' as const,
                timestamp: new Date(s.clock.now()).toISOString(),
              },
            };
            const r = await s.store.commit(first, record.task.id, {
              expectFence: record.fence,
              task: { ...record.task, status: update.status },
              events: [{ statusUpdate: update }],
            });
            expect(r.ok).toBe(true);
            late = { id: record.task.id, seq: record.seq + 1 };
          }
          return listed;
        };
      },
    });
    const b = replica(s, racing, new GatedAgent(false), { recovery: false });
    expect(await b.handler.recovery.runOnce()).toEqual({
      resumed: 0,
      failed: 2,
      renewed: 0,
      skipped: 1,
      deferred: 0,
    });
    const moved = await stored(s.store, late!.id);
    // Not overwritten: the worker's late write stands, and the task is still the lost worker's, lapsed.
    expect(moved).toMatchObject({ fence: 1, seq: late!.seq });
    expect(moved.task.status.state).toBe('TASK_STATE_WORKING');
    // The next sweep lists it afresh and takes it over on top of that write.
    expect(await b.handler.recovery.runOnce()).toEqual({
      resumed: 0,
      failed: 1,
      renewed: 0,
      skipped: 0,
      deferred: 0,
    });
    expect(await stored(s.store, late!.id)).toMatchObject({ fence: 2, seq: late!.seq + 1 });
    for (const id of ids) expect((await stored(s.store, id)).task.status.state).toBe('TASK_STATE_FAILED');
    for (let i = 0; i < 3; i++) lostAgent.gate(i).open();
  });

  it('refuses a concurrency that is not a whole number of at least 1', async () => {
    const s = await freshStore(kind);
    expect(() => replica(s, s.store, new GatedAgent(false), { recovery: { concurrency: 0 } })).toThrow(
      /recovery concurrency/,
    );
  });
});
