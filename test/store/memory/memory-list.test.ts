/**
 * ListTasks over the in-memory store's ordered index gives exactly what the contract's definition gives: filter,
 * sort newest status timestamp first (ties by id, descending), cut keyset pages, count every match (`totalSize`).
 * A model computes that definition the slow way, by sorting everything, and random histories of creations,
 * commits (moving tasks in the order and between states), direct replies, releases and terminal TTLs are
 * compared against it page by page.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TASK_STATES, isTerminalState, type TaskState } from '../../../src/protocol/task-state.js';
import { compareNewestFirst, encodePageToken } from '../../../src/store/page-token.js';
import type { TaskQuery } from '../../../src/store/task-store.js';
import { ALICE, BOB, makeTask, memoryStore } from './fixtures.js';

const TTL = 1000;
const STAMPS = [null, '2026-01-01T00:00:01.000Z', '2026-01-01T00:00:02.000Z', '2026-01-01T00:00:03.000Z'];
const CONTEXTS = ['c1', 'c2', 'c3'];
const STATES = TASK_STATES.filter((s) => s !== 'TASK_STATE_UNSPECIFIED');

type Op =
  | { op: 'create'; id: number; stamp: number; context: number; state: TaskState; bob: boolean }
  | { op: 'commit'; id: number; stamp: number; state: TaskState }
  | { op: 'reply'; id: number }
  | { op: 'release'; id: number }
  | { op: 'advance'; ms: number };

const id = fc.integer({ min: 0, max: 24 });
const stamp = fc.integer({ min: 0, max: STAMPS.length - 1 });
const state = fc.constantFrom(...STATES);
const arbOp: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('create' as const),
      id,
      stamp,
      context: fc.integer({ min: 0, max: 2 }),
      state,
      bob: fc.boolean(),
    }),
  },
  { weight: 4, arbitrary: fc.record({ op: fc.constant('commit' as const), id, stamp, state }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('reply' as const), id }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('release' as const), id }) },
  {
    weight: 1,
    arbitrary: fc.record({ op: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 1500 }) }),
  },
);
const arbQuery: fc.Arbitrary<Omit<TaskQuery, 'pageSize'>> = fc
  .record({
    contextId: fc.option(fc.constantFrom(...CONTEXTS, 'none'), { nil: undefined }),
    status: fc.option(state, { nil: undefined }),
    statusTimestampAfter: fc.option(fc.constantFrom(...STAMPS.slice(1), '2026-01-01T00:00:01.500Z'), {
      nil: undefined,
    }),
  })
  // Filters left out are absent, not undefined (the query type has exact optional properties).
  .map((q) => Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined)));

interface ModelTask {
  id: string;
  timestamp: string | null;
  contextId: string;
  state: TaskState;
  kind: 'task' | 'message';
  updatedAt: number;
  fence: number;
  seq: number;
}

function visible(t: ModelTask, now: number): boolean {
  return t.kind === 'task' && !(isTerminalState(t.state) && now - t.updatedAt >= TTL);
}

function expectedIds(model: Map<string, ModelTask>, now: number, q: Omit<TaskQuery, 'pageSize'>): string[] {
  const pos = (t: ModelTask) => ({ timestamp: t.timestamp ?? '', id: t.id });
  return [...model.values()]
    .filter((t) => visible(t, now))
    .filter((t) => q.contextId === undefined || t.contextId === q.contextId)
    .filter((t) => q.status === undefined || t.state === q.status)
    .filter((t) => q.statusTimestampAfter === undefined || (t.timestamp ?? '') >= q.statusTimestampAfter)
    .sort((a, b) => compareNewestFirst(pos(a), pos(b)))
    .map((t) => t.id);
}

describe('memory store: ListTasks over the ordered index', () => {
  it('pages exactly like filter + sort + slice, with exact totalSize, over random histories (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(arbOp, { maxLength: 60 }),
        fc.array(fc.tuple(arbQuery, fc.integer({ min: 1, max: 7 })), { minLength: 1, maxLength: 4 }),
        async (ops, queries) => {
          const { store, clock } = memoryStore({ terminalTaskTtlMs: TTL });
          const model = new Map<string, ModelTask>();
          const bobs = new Set<string>();
          for (const o of ops) {
            if (o.op === 'advance') {
              clock.advance(o.ms);
              continue;
            }
            const tid = `t${o.id}`;
            const cur = model.get(tid);
            const now = clock.now();
            if (o.op === 'create') {
              // Ids are unique within a scope (a second create is refused): Bob's tasks are never touched again.
              if (cur || (o.bob && bobs.has(tid))) continue;
              if (o.bob) bobs.add(tid);
              const task = makeTask(tid, {
                state: o.state,
                timestamp: STAMPS[o.stamp],
                contextId: CONTEXTS[o.context],
              });
              const r = await store.createTask(o.bob ? BOB : ALICE, { task });
              expect(r.outcome).toBe('created');
              if (!o.bob)
                model.set(tid, {
                  id: tid,
                  timestamp: STAMPS[o.stamp]!,
                  contextId: CONTEXTS[o.context]!,
                  state: o.state,
                  kind: 'task',
                  updatedAt: now,
                  fence: 1,
                  seq: 0,
                });
              continue;
            }
            // Tasks past the terminal TTL are gone for the store; the model forgets them too.
            if (!cur) continue;
            if ((isTerminalState(cur.state) || cur.kind === 'message') && now - cur.updatedAt >= TTL) {
              expect(await store.getTask(ALICE, tid)).toBeUndefined();
              model.delete(tid);
              continue;
            }
            const stored = (await store.getTask(ALICE, tid))!;
            if (o.op === 'release') {
              const released = await store.releaseClaim(ALICE, tid, undefined);
              expect(released).toBe(cur.fence === 1 && cur.seq === 0);
              if (released) model.delete(tid);
              continue;
            }
            const ts = o.op === 'commit' ? STAMPS[o.stamp]! : cur.timestamp;
            const st = o.op === 'commit' ? o.state : cur.state;
            const task = { ...stored.task, status: { state: st, ...(ts === null ? {} : { timestamp: ts }) } };
            const reply =
              o.op === 'reply'
                ? { messageId: 'r', role: 'ROLE_AGENT' as const, parts: [{ text: 'x' }] }
                : undefined;
            const r = await store.commit(ALICE, tid, {
              expectFence: cur.fence,
              task,
              events: [],
              ...(reply ? { reply } : {}),
            });
            // A finished task takes no further write (docs/semantics.md §4): refused, and the model stays.
            const finished = isTerminalState(cur.state) || cur.kind === 'message';
            expect(r.ok).toBe(!finished);
            if (finished) continue;
            Object.assign(cur, {
              timestamp: ts,
              state: st,
              updatedAt: now,
              kind: reply ? 'message' : cur.kind,
            });
          }
          const now = clock.now();
          for (const [q, pageSize] of queries) {
            const want = expectedIds(model, now, q);
            const got: string[] = [];
            let pageToken: string | undefined;
            for (let page = 0; page < 40; page++) {
              const p = await store.listTasks(ALICE, { ...q, pageSize, ...(pageToken ? { pageToken } : {}) });
              expect(p.totalSize).toBe(want.length);
              expect(p.records.length).toBeLessThanOrEqual(pageSize);
              got.push(...p.records.map((r) => r.task.id));
              if (p.nextPageToken === '') break;
              pageToken = p.nextPageToken;
            }
            expect(got).toEqual(want);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('starts after any cursor position, also one between tasks or past every task', async () => {
    const { store } = memoryStore();
    for (const [i, s] of [
      '2026-01-01T00:00:01.000Z',
      '2026-01-01T00:00:03.000Z',
      '2026-01-01T00:00:05.000Z',
    ].entries())
      await store.createTask(ALICE, { task: makeTask(`t${i}`, { timestamp: s }) });
    const after = async (timestamp: string, tid: string) =>
      (
        await store.listTasks(ALICE, { pageSize: 10, pageToken: encodePageToken({ timestamp, id: tid }) })
      ).records.map((r) => r.task.id);
    expect(await after('2026-01-01T00:00:04.000Z', 'x')).toEqual(['t1', 't0']);
    expect(await after('2026-01-01T00:00:03.000Z', 't1')).toEqual(['t0']);
    expect(await after('2026-01-01T00:00:03.000Z', 'zzz')).toEqual(['t1', 't0']);
    expect(await after('2026-01-01T00:00:03.000Z', 'a')).toEqual(['t0']);
    expect(await after('2026-01-01T00:00:00.000Z', 'x')).toEqual([]);
    expect(await after('', '')).toEqual([]);
    expect(await after('9999', '')).toEqual(['t2', 't1', 't0']);
  });
});
