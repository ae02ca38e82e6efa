/** Contract: listTasks filters, order (newest status timestamp first, then id descending), paging, totalSize. */
import { describe, expect, it } from 'vitest';
import { InvalidParamsError } from '../../src/protocol/errors.js';
import type { TaskState } from '../../src/protocol/task-state.js';
import type { TaskStore } from '../../src/store/task-store.js';
import { ALICE, BOB, makeTask } from './fixtures/tasks.js';
import type { MakeStore } from './harness.js';
import { useStore } from './harness.js';

const ts = (s: number) => `2026-01-01T00:00:${String(s).padStart(2, '0')}.000Z`;

/** Tasks: id, status second (null: no timestamp), context, state. */
const ROWS: [string, number | null, string, TaskState][] = [
  ['a', 1, 'c1', 'TASK_STATE_SUBMITTED'],
  ['b', 3, 'c1', 'TASK_STATE_WORKING'],
  ['c', 3, 'c2', 'TASK_STATE_COMPLETED'],
  ['d', 2, 'c2', 'TASK_STATE_WORKING'],
  ['e', 5, 'c1', 'TASK_STATE_WORKING'],
  ['f', null, 'c1', 'TASK_STATE_SUBMITTED'],
];

async function seed(store: TaskStore): Promise<void> {
  for (const [id, s, contextId, state] of ROWS) {
    await store.createTask(ALICE, {
      task: makeTask(id, { timestamp: s === null ? null : ts(s), contextId, state }),
    });
  }
  await store.createTask(BOB, { task: makeTask('z', { timestamp: ts(9) }) });
}

async function allPages(store: TaskStore, pageSize: number, extra: { contextId?: string } = {}) {
  const ids: string[][] = [];
  let pageToken: string | undefined;
  for (let i = 0; i < 20; i++) {
    const page = await store.listTasks(ALICE, { pageSize, ...extra, ...(pageToken ? { pageToken } : {}) });
    ids.push(page.records.map((r) => r.task.id));
    if (page.nextPageToken === '') break;
    pageToken = page.nextPageToken;
  }
  return ids;
}

/** Registers the listTasks tests. */
export function listContract(make: MakeStore): void {
  const h = useStore(make);

  describe('listTasks', () => {
    it('orders newest status timestamp first, ties by id descending, untimestamped last', async () => {
      const { store } = h();
      await seed(store);
      const page = await store.listTasks(ALICE, { pageSize: 50 });
      expect(page.records.map((r) => r.task.id)).toEqual(['e', 'c', 'b', 'd', 'a', 'f']);
      expect(page).toMatchObject({ nextPageToken: '', totalSize: 6 });
      expect(page.records[0]).toMatchObject({ kind: 'task', fence: 1, seq: 0 });
    });

    it('pages with a cursor, giving every task exactly once, and counts before paging', async () => {
      const { store } = h();
      await seed(store);
      expect(await allPages(store, 2)).toEqual([
        ['e', 'c'],
        ['b', 'd'],
        ['a', 'f'],
      ]);
      expect(await allPages(store, 4)).toEqual([
        ['e', 'c', 'b', 'd'],
        ['a', 'f'],
      ]);
      const first = await store.listTasks(ALICE, { pageSize: 2 });
      expect(first.totalSize).toBe(6);
      // A task added after the first page, newer than the cursor, does not shift the pages that follow.
      await store.createTask(ALICE, { task: makeTask('n', { timestamp: ts(7) }) });
      const second = await store.listTasks(ALICE, { pageSize: 2, pageToken: first.nextPageToken });
      expect(second.records.map((r) => r.task.id)).toEqual(['b', 'd']);
      expect(second.totalSize).toBe(7);
    });

    it('filters by context, state and status timestamp (inclusive)', async () => {
      const { store } = h();
      await seed(store);
      const ids = async (q: Parameters<TaskStore['listTasks']>[1]) => {
        const p = await store.listTasks(ALICE, q);
        return [p.records.map((r) => r.task.id), p.totalSize];
      };
      expect(await ids({ pageSize: 10, contextId: 'c2' })).toEqual([['c', 'd'], 2]);
      expect(await ids({ pageSize: 10, status: 'TASK_STATE_WORKING' })).toEqual([['e', 'b', 'd'], 3]);
      expect(await ids({ pageSize: 10, statusTimestampAfter: ts(3) })).toEqual([['e', 'c', 'b'], 3]);
      expect(await ids({ pageSize: 1, contextId: 'c1', status: 'TASK_STATE_WORKING' })).toEqual([['e'], 2]);
      expect(await allPages(store, 1, { contextId: 'c2' })).toEqual([['c'], ['d']]);
    });

    it('keeps scopes apart and returns an empty page for an empty scope', async () => {
      const { store } = h();
      await seed(store);
      const bob = await store.listTasks(BOB, { pageSize: 10 });
      expect(bob.records.map((r) => r.task.id)).toEqual(['z']);
      expect(await store.listTasks({ tenant: 'none', owner: '' }, { pageSize: 10 })).toEqual({
        records: [],
        nextPageToken: '',
        totalSize: 0,
      });
    });

    it('refuses a page token it did not issue', async () => {
      const { store } = h();
      await seed(store);
      await expect(store.listTasks(ALICE, { pageSize: 2, pageToken: 'not-a-token' })).rejects.toBeInstanceOf(
        InvalidParamsError,
      );
      await expect(store.listTasks(ALICE, { pageSize: 2, pageToken: '' })).rejects.toBeInstanceOf(
        InvalidParamsError,
      );
    });
  });
}
