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

/** `store`, its commits counted while in flight (the most at once is kept), and `getTask` failing when told. */
function watched(store: TaskStore) {
  const seen = { inFlight: 0, most: 0, commits: 0, failNextGet: false };
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
            return await f(...args);
          } finally {
            seen.inFlight--;
            seen.commits++;
          }
        };
      }
      if (prop === 'getTask') {
        return (...args: unknown[]) => {
          if (seen.failNextGet) {
            seen.failNextGet = false;
            return Promise.reject(new Error('the store went away for a moment'));
          }
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
      stillLeased: { held: 0 },
    });
    expect(seen.commits).toBe(TASKS);
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
    const b = replica(s, store, new GatedAgent(false), { recovery: false });
    seen.failNextGet = true;
    await expect(b.handler.recovery.runOnce()).rejects.toThrow(/went away/);
    expect(seen.inFlight).toBe(0); // nothing left running behind the error
    const taken = seen.commits;
    expect(taken).toBeLessThan(12);

    const second = await b.handler.recovery.runOnce();
    expect(second.failed).toBe(12 - taken);
    for (const id of ids) expect((await stored(s.store, id)).fence).toBe(2);
    for (let i = 0; i < 12; i++) lostAgent.gate(i).open();
  });

  it('refuses a concurrency that is not a whole number of at least 1', async () => {
    const s = await freshStore(kind);
    expect(() => replica(s, s.store, new GatedAgent(false), { recovery: { concurrency: 0 } })).toThrow(
      /recovery concurrency/,
    );
  });
});
