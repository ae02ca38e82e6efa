/**
 * When a turn's writes are stored (ADR 0048), on every store: the writes of a burst are one commit; a step's
 * effect never runs before the writes made ahead of it are stored; `ctx.flush()` makes them durable on demand;
 * a burst too long for one commit is stored in bounded commits, in order.
 */
import { describe, expect, it } from 'vitest';
import type { TaskStore, TaskWrite } from '../../../src/store/task-store.js';
import type { Scope } from '../../../src/store/scope.js';
import { ANON, freshStore, replica, STORE_KINDS } from '../leases/harness.js';
import { ScriptAgent, sendAndWait } from './step-agent.js';

/** The store, counting commits and the events each carried (a proxy: the stores keep private fields). */
function counting(store: TaskStore): { store: TaskStore; commits: number[] } {
  const commits: number[] = [];
  const proxy = new Proxy(store, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (typeof value !== 'function') return value;
      if (prop === 'commit') {
        return (scope: Scope, taskId: string, write: TaskWrite) => {
          commits.push(write.events.length);
          return target.commit(scope, taskId, write);
        };
      }
      return (...args: unknown[]) => (value as (...a: unknown[]) => unknown).apply(target, args);
    },
  });
  return { store: proxy, commits };
}

describe.each(STORE_KINDS)('when a turn’s writes are stored, on %s', (kind) => {
  it('stores a burst of writes (WORKING, two artifacts, COMPLETED) as one commit, events in order', async () => {
    const s = await freshStore(kind);
    const { store, commits } = counting(s.store);
    const agent = new ScriptAgent(false, async (ctx) => {
      await ctx.working('on it');
      await ctx.artifact({ artifactId: 'a', parts: [{ text: '1' }] });
      await ctx.artifact({ artifactId: 'a', parts: [{ text: '2' }] }, { append: true, lastChunk: true });
      await ctx.complete('done');
    });
    const task = await sendAndWait(replica(s, store, agent), 'burst');
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(commits).toEqual([4]);
    const events = await s.store.readEvents(ANON, task.id, 0);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(events.map((e) => Object.keys(e.event)[0])).toEqual([
      'statusUpdate',
      'artifactUpdate',
      'artifactUpdate',
      'statusUpdate',
    ]);
    expect(task.artifacts?.[0]?.parts).toEqual([{ text: '1' }, { text: '2' }]);
  });

  it('stores the writes made before a step before the step’s effect runs', async () => {
    const s = await freshStore(kind);
    const seenInEffect: string[] = [];
    const agent = new ScriptAgent(false, async (ctx) => {
      await ctx.working('about to charge');
      await ctx.artifact({ artifactId: 'quote', parts: [{ text: '42' }] });
      await ctx.step('charge', async () => {
        const stored = await s.store.getTask(ANON, ctx.taskId);
        seenInEffect.push(stored?.task.status.state ?? 'none', String(stored?.task.artifacts?.length ?? 0));
        return 'charged';
      });
    });
    await sendAndWait(replica(s, s.store, agent), 'steps');
    expect(seenInEffect).toEqual(['TASK_STATE_WORKING', '1']);
  });

  it('ctx.flush() stores what was reported so far before it returns', async () => {
    const s = await freshStore(kind);
    const seen: number[] = [];
    const agent = new ScriptAgent(false, async (ctx) => {
      await ctx.working('one');
      await ctx.artifact({ parts: [{ text: 'x' }] });
      await ctx.flush();
      seen.push((await s.store.getTask(ANON, ctx.taskId))?.seq ?? -1);
      await ctx.flush(); // nothing waiting: returns at once
    });
    await sendAndWait(replica(s, s.store, agent), 'flush');
    expect(seen).toEqual([2]);
  });

  it('stores a burst of 200 chunks in commits of at most 64 writes, every chunk once, in order', async () => {
    const s = await freshStore(kind);
    const { store, commits } = counting(s.store);
    const agent = new ScriptAgent(false, async (ctx) => {
      for (let i = 0; i < 200; i++) {
        void ctx.artifact({ artifactId: 'big', parts: [{ text: String(i) }] }, { append: i > 0 });
      }
      await ctx.complete();
    });
    const task = await sendAndWait(replica(s, store, agent), 'chunks');
    expect(Math.max(...commits)).toBeLessThanOrEqual(64);
    expect(commits.reduce((a, b) => a + b, 0)).toBe(201);
    expect(task.artifacts?.[0]?.parts.map((p) => ('text' in p ? p.text : ''))).toEqual(
      Array.from({ length: 200 }, (_, i) => String(i)),
    );
  });
});
