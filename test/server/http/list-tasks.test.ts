/**
 * ListTasks (A2A v1.0): filters (contextId, status, statusTimestampAfter), newest
 * first by status timestamp, cursor paging with `nextPageToken` always present, `pageSize` / `totalSize`,
 * `includeArtifacts` (absent key when false), `historyLength`, validation errors. A ManualClock gives every
 * task a distinct, known status timestamp.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Task } from '../../../src/protocol/model.js';
import { ListTasksResponseSchema } from '../../../src/protocol/schemas/index.js';
import { ManualClock } from '../../../src/store/clock.js';
import { MemoryTaskStore } from '../../../src/store/memory/memory-task-store.js';
import { expectRestError, expectRpcError, parseAs, uid, userMsg } from '../../helpers/http.js';
import { builtinServer, rest, rpc, rpcOk, sendTask } from './fixtures.js';

const clock = new ManualClock(Date.UTC(2026, 0, 1));
const server = builtinServer('tck', { clock, store: new MemoryTaskStore({ clock }) });
/** Tasks in creation order (oldest first). */
const made: Task[] = [];
const CTX = 'ctx-list-1';

beforeAll(async () => {
  // 6 tasks, one second apart: even ones COMPLETED with an artifact, odd ones INPUT_REQUIRED; 0..2 in CTX.
  for (let i = 0; i < 6; i++) {
    clock.advance(1000);
    const prefix = i % 2 === 0 ? 'tck-artifact-text' : 'tck-input-required';
    const extra = i < 3 ? { contextId: CTX } : {};
    made.push(await sendTask(server, { message: userMsg(uid(prefix), `task ${i}`, extra) }));
  }
});

afterAll(() => server.close());

async function list(
  params: Record<string, unknown>,
): Promise<{ tasks: Task[]; raw: Record<string, unknown> }> {
  const env = await rpc(server, 'ListTasks', params);
  if (env.error) throw new Error(JSON.stringify(env.error));
  const raw = env.result as Record<string, unknown>;
  return { tasks: parseAs(ListTasksResponseSchema, raw, 'ListTasks').tasks, raw };
}

const ids = (ts: readonly Task[]) => ts.map((t) => t.id);
const newestFirst = () => ids([...made].reverse());

describe('ListTasks', () => {
  it('returns all tasks newest first with pageSize, totalSize and an empty nextPageToken', async () => {
    const { tasks, raw } = await list({});
    expect(ids(tasks)).toEqual(newestFirst());
    expect(raw.nextPageToken).toBe('');
    expect(raw.pageSize).toBe(50);
    expect(raw.totalSize).toBe(6);
  });

  it('pages with a cursor; nextPageToken is present on every page and "" on the last', async () => {
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const { tasks, raw } = await list({ pageSize: 4, ...(token ? { pageToken: token } : {}) });
      expect(raw).toHaveProperty('nextPageToken');
      expect(raw.pageSize).toBe(4);
      expect(raw.totalSize).toBe(6);
      seen.push(...ids(tasks));
      token = raw.nextPageToken as string;
      pages++;
    } while (token !== '' && pages < 10);
    expect(pages).toBe(2);
    expect(seen).toEqual(newestFirst());
  });

  it('pages stay stable when a newer task arrives between pages (keyset cursor)', async () => {
    const first = await list({ pageSize: 3 });
    clock.advance(1000);
    const intruder = await sendTask(server, { message: userMsg(uid('tck-complete-task'), 'late') });
    const second = await list({ pageSize: 3, pageToken: first.raw.nextPageToken });
    expect([...ids(first.tasks), ...ids(second.tasks)]).toEqual(newestFirst());
    expect(ids(second.tasks)).not.toContain(intruder.id);
    made.push(intruder);
  });

  it('filters by contextId', async () => {
    const { tasks, raw } = await list({ contextId: CTX });
    expect(ids(tasks)).toEqual(ids(made.slice(0, 3).reverse()));
    expect(raw.totalSize).toBe(3);
  });

  it('filters by status', async () => {
    const { tasks } = await list({ status: 'TASK_STATE_INPUT_REQUIRED' });
    expect(ids(tasks)).toEqual(
      ids(made.filter((t) => t.status.state === 'TASK_STATE_INPUT_REQUIRED').reverse()),
    );
    expect(tasks.length).toBe(3);
  });

  it('filters by statusTimestampAfter (inclusive)', async () => {
    const pivot = made[3]!.status.timestamp!;
    const { tasks } = await list({ statusTimestampAfter: pivot });
    expect(ids(tasks)).toEqual(ids(made.slice(3).reverse()));
  });

  it('combines filters with REST query parameters', async () => {
    const res = await rest(server, 'GET', `/tasks?contextId=${CTX}&status=TASK_STATE_COMPLETED&pageSize=1`);
    expect(res.status).toBe(200);
    const raw = (await res.json()) as Record<string, unknown>;
    const body = parseAs(ListTasksResponseSchema, raw, 'ListTasks');
    expect(ids(body.tasks)).toEqual([made[2]!.id]);
    expect(body.totalSize).toBe(2);
    expect(typeof raw.nextPageToken).toBe('string');
    expect(raw.nextPageToken).not.toBe('');
  });

  it('includeArtifacts=false (default) omits the artifacts key; true includes it', async () => {
    const withArtifacts = made[0]!;
    expect(withArtifacts.artifacts?.length).toBe(1);
    for (const params of [{}, { includeArtifacts: false }]) {
      const { raw } = await list(params);
      for (const t of raw.tasks as Record<string, unknown>[]) expect(t).not.toHaveProperty('artifacts');
    }
    const { tasks, raw } = await list({ includeArtifacts: true });
    for (const t of raw.tasks as Record<string, unknown>[]) expect(Array.isArray(t.artifacts)).toBe(true);
    expect(tasks.find((t) => t.id === withArtifacts.id)?.artifacts?.[0]?.parts).toEqual([
      { text: 'Generated text content' },
    ]);
    const viaRest = await rest(server, 'GET', '/tasks?includeArtifacts=true');
    const restRaw = (await viaRest.json()) as { tasks: Record<string, unknown>[] };
    for (const t of restRaw.tasks) expect(t).toHaveProperty('artifacts');
    const viaRestFalse = await rest(server, 'GET', '/tasks?includeArtifacts=false');
    const restRawFalse = (await viaRestFalse.json()) as { tasks: Record<string, unknown>[] };
    for (const t of restRawFalse.tasks) expect(t).not.toHaveProperty('artifacts');
  });

  it('historyLength applies to every listed task', async () => {
    const { raw } = await list({ historyLength: 0 });
    for (const t of raw.tasks as Record<string, unknown>[]) expect(t).not.toHaveProperty('history');
    const one = await list({ historyLength: 1 });
    for (const t of one.tasks) expect(t.history?.length ?? 0).toBeLessThanOrEqual(1);
  });

  it('an empty result still carries tasks, nextPageToken, pageSize and totalSize', async () => {
    const env = await rpc(server, 'ListTasks', { contextId: 'no-such-context' });
    const raw = env.result as Record<string, unknown>;
    expect(raw.nextPageToken).toBe('');
    expect(raw.totalSize).toBe(0);
    expect(raw.pageSize).toBe(50);
    expect(parseAs(ListTasksResponseSchema, raw, 'ListTasks').tasks).toEqual([]);
  });

  it('rejects invalid pageSize, status and pageToken with -32602 / 400 INVALID_ARGUMENT', async () => {
    for (const params of [
      { pageSize: 0 },
      { pageSize: 101 },
      { status: 'DONE' },
      { pageToken: '%%not-a-token%%' },
    ]) {
      expectRpcError(await rpc(server, 'ListTasks', params), -32602, 'INVALID_PARAMS');
    }
    await expectRestError(
      await rest(server, 'GET', '/tasks?pageSize=101'),
      400,
      'INVALID_ARGUMENT',
      'INVALID_PARAMS',
    );
    await expectRestError(
      await rest(server, 'GET', '/tasks?pageToken=garbage'),
      400,
      'INVALID_ARGUMENT',
      'INVALID_PARAMS',
    );
  });

  it('pageSize 100 is accepted', async () => {
    const r = await rpcOk(server, 'ListTasks', { pageSize: 100 }, ListTasksResponseSchema);
    expect(r.pageSize).toBe(100);
  });
});
