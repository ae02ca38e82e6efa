/**
 * Push configs per task are capped (ADR 0032): 16 by default (`maxPushConfigsPerTask`), the next create refused
 * with PUSH_CONFIG_LIMIT (-32602 / 400) and nothing stored; concurrent creates never end above the cap in one
 * server, and above it by at most one per extra replica on PostgreSQL (the documented bound). And
 * ListTaskPushNotificationConfigs is paged (`pageSize`, `pageToken`, `nextPageToken`), on both bindings and
 * every store.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/store/clock.js';
import {
  ANON,
  BINDINGS,
  makeServer,
  send,
  taskOf,
  userMessage,
  type MakeServerOptions,
  type TestServer,
} from '../duplicate-safety/helpers.js';
import { allPages, createConfig, deleteConfig, listConfigs, pageOf } from './push-configs.js';
import { closeStores, openStore, STORE_KINDS, type OpenedStore, type StoreKind } from './server-stores.js';
import type { CallAnswer } from './wire.js';

afterAll(closeStores);

const CARD = {
  name: 'push-config cap test agent',
  description: 'keeps a bounded number of webhooks per task',
  capabilities: { streaming: true, pushNotifications: true },
};
const DEFAULT_CAP = 16;
const hook = (i: number | string) => ({ url: `https://hooks.example.com/${i}` });

function isLimit(a: CallAnswer): boolean {
  if (a.ok) return false;
  return (
    a.error.reason === 'PUSH_CONFIG_LIMIT' &&
    (a.error.binding === 'jsonrpc' ? a.error.code === -32602 : a.httpStatus === 400)
  );
}

describe.each(STORE_KINDS)('push configs per task (%s store)', (kind: StoreKind) => {
  const servers: TestServer[] = [];
  let opened: OpenedStore | undefined;
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
    await opened?.cleanup();
    opened = undefined;
  });

  async function serverOn(extra: MakeServerOptions = {}): Promise<TestServer> {
    const clock = new ManualClock();
    opened = await openStore(kind, clock);
    const s = makeServer({ clock, store: opened.store, card: CARD, ...extra });
    servers.push(s);
    return s;
  }

  async function aTask(s: TestServer): Promise<string> {
    return taskOf(await send(s.ep, 'jsonrpc', userMessage('hello'))).id;
  }

  it.each(BINDINGS)(
    '%s: 16 by default; the 17th is refused with PUSH_CONFIG_LIMIT and stores nothing',
    async (binding) => {
      const s = await serverOn();
      const taskId = await aTask(s);
      for (let i = 0; i < DEFAULT_CAP; i++)
        expect((await createConfig(s.ep, binding, taskId, hook(i))).ok).toBe(true);
      const over = await createConfig(s.ep, binding, taskId, { ...hook('over'), id: 'one-too-many' });
      expect(isLimit(over), JSON.stringify(over)).toBe(true);
      if (!over.ok) {
        expect(over.error.message).toMatch(/16/);
        expect(over.error.metadata).toEqual({ limit: '16', taskId });
      }
      const stored = await s.store.listPushConfigs(ANON, taskId);
      expect(stored).toHaveLength(DEFAULT_CAP);
      expect(stored.some((c) => c.id === 'one-too-many')).toBe(false);
      // Replacing a config that exists does not add one, so it is allowed at the cap.
      const first = stored[0]!;
      const replaced = await createConfig(s.ep, binding, taskId, {
        id: first.id!,
        url: 'https://hooks.example.com/new',
      });
      expect(replaced.ok, JSON.stringify(replaced)).toBe(true);
      expect((await s.store.getPushConfig(ANON, taskId, first.id!))?.url).toBe(
        'https://hooks.example.com/new',
      );
      // Deleting one makes room for one.
      expect((await deleteConfig(s.ep, binding, taskId, first.id!)).ok).toBe(true);
      expect((await createConfig(s.ep, binding, taskId, hook('again'))).ok).toBe(true);
      expect(isLimit(await createConfig(s.ep, binding, taskId, hook('over again')))).toBe(true);
    },
  );

  it('the cap is an option (maxPushConfigsPerTask: 3), and a config sent inline with the message counts', async () => {
    const s = await serverOn({ maxPushConfigsPerTask: 3 });
    const taskId = taskOf(
      await send(s.ep, 'rest', userMessage('hello'), {
        pushConfig: { url: 'https://hooks.example.com/inline' },
      }),
    ).id;
    expect((await createConfig(s.ep, 'jsonrpc', taskId, hook(1))).ok).toBe(true);
    expect((await createConfig(s.ep, 'rest', taskId, hook(2))).ok).toBe(true);
    expect(isLimit(await createConfig(s.ep, 'jsonrpc', taskId, hook(3)))).toBe(true);
    expect(await s.store.listPushConfigs(ANON, taskId)).toHaveLength(3);
  });

  it('40 concurrent creates on one task over both bindings: exactly 16 succeed, the rest are refused', async () => {
    const s = await serverOn();
    const taskId = await aTask(s);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => createConfig(s.ep, BINDINGS[i % 2]!, taskId, hook(i))),
    );
    const ok = answers.filter((a) => a.ok);
    expect(ok).toHaveLength(DEFAULT_CAP);
    expect(answers.filter(isLimit)).toHaveLength(40 - DEFAULT_CAP);
    const stored = (await s.store.listPushConfigs(ANON, taskId)).map((c) => c.id).sort();
    const accepted = ok.map((a) => (a.ok ? (a.result as { id: string }).id : '')).sort();
    expect(stored).toEqual(accepted);
  });

  it.skipIf(kind === 'memory')(
    '40 concurrent creates split over two servers sharing the store: every success is kept, the cap holds within its documented bound',
    async () => {
      const s = await serverOn();
      const peer = makeServer({ clock: s.clock, store: await opened!.openPeer!(), card: CARD });
      servers.push(peer);
      const taskId = await aTask(s);
      // One short of the cap, so both servers reach the boundary together with their first create.
      for (let i = 0; i < DEFAULT_CAP - 1; i++)
        await createConfig(s.ep, 'jsonrpc', taskId, hook(`before-${i}`));
      const answers = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          createConfig((i % 2 ? peer : s).ep, BINDINGS[(i >> 1) % 2]!, taskId, hook(i)),
        ),
      );
      const ok = answers.filter((a) => a.ok);
      expect(answers.filter((a) => !a.ok).every(isLimit)).toBe(true);
      const stored = (await s.store.listPushConfigs(ANON, taskId)).map((c) => c.id);
      const raced = stored.slice(DEFAULT_CAP - 1).sort();
      expect(raced).toEqual(ok.map((a) => (a.ok ? (a.result as { id: string }).id : '')).sort());
      // SQLite serialises writers, so the insertion-order check is exact; PostgreSQL may commit two concurrent
      // inserts out of identity order, so each extra replica can add one (ADR 0032).
      expect(stored.length).toBeLessThanOrEqual(kind === 'sqlite' ? DEFAULT_CAP : DEFAULT_CAP + 1);
      expect(stored.length).toBeGreaterThan(0);
    },
  );

  it.each(BINDINGS)('%s: ListTaskPushNotificationConfigs is paged in creation order', async (binding) => {
    const s = await serverOn();
    const taskId = await aTask(s);
    const ids = Array.from({ length: DEFAULT_CAP }, (_, i) => `cfg-${String(i).padStart(2, '0')}`);
    for (const id of ids)
      expect((await createConfig(s.ep, binding, taskId, { id, ...hook(id) })).ok).toBe(true);
    const paged = await allPages(s.ep, binding, taskId, 5);
    expect(paged).toEqual({ ids, pages: 4 });
    // No pageSize (or 0, the proto default): the server's default page, here everything, and no next token.
    for (const paging of [{}, { pageSize: 0 }]) {
      const page = pageOf(await listConfigs(s.ep, binding, taskId, paging));
      expect(page.configs.map((c) => c.id)).toEqual(ids);
      expect(page.nextPageToken).toBe('');
    }
    // An exact fit ends with an empty token, not an empty extra page.
    expect(await allPages(s.ep, binding, taskId, 8)).toEqual({ ids, pages: 2 });
  });

  it.each(BINDINGS)('%s: a deletion between pages neither skips nor repeats a config', async (binding) => {
    const s = await serverOn();
    const taskId = await aTask(s);
    const ids = Array.from({ length: 9 }, (_, i) => `c${i}`);
    for (const id of ids) await createConfig(s.ep, binding, taskId, { id, ...hook(id) });
    const first = pageOf(await listConfigs(s.ep, binding, taskId, { pageSize: 3 }));
    expect(first.configs.map((c) => c.id)).toEqual(['c0', 'c1', 'c2']);
    // The page's last config and an earlier one go away before the next page is read.
    await deleteConfig(s.ep, binding, taskId, 'c2');
    await deleteConfig(s.ep, binding, taskId, 'c0');
    const second = pageOf(
      await listConfigs(s.ep, binding, taskId, { pageSize: 3, pageToken: first.nextPageToken }),
    );
    expect(second.configs.map((c) => c.id)).toEqual(['c3', 'c4', 'c5']);
  });

  it.each(BINDINGS)("%s: a token that is not ours, or another task's, is INVALID_PARAMS", async (binding) => {
    const s = await serverOn();
    const a = await aTask(s);
    const b = await aTask(s);
    for (const id of ['x', 'y', 'z']) {
      await createConfig(s.ep, binding, a, { id, ...hook(id) });
      await createConfig(s.ep, binding, b, { id, ...hook(id) });
    }
    const tokenOfA = pageOf(await listConfigs(s.ep, binding, a, { pageSize: 1 })).nextPageToken;
    expect(tokenOfA).not.toBe('');
    for (const [taskId, pageToken] of [
      [a, 'not-a-token'],
      [a, Buffer.from('[1,2]').toString('base64url')],
      [b, tokenOfA],
    ] as const) {
      const res = await listConfigs(s.ep, binding, taskId, { pageSize: 1, pageToken });
      expect(res.ok).toBe(false);
      if (!res.ok)
        expect([res.error.reason, res.error.binding === 'jsonrpc' ? res.error.code : res.httpStatus]).toEqual(
          ['INVALID_PARAMS', binding === 'jsonrpc' ? -32602 : 400],
        );
    }
  });
});
