/**
 * JSON nested deeper than the wire limit (64 levels) is refused as a parse error (JSON-RPC -32700 / HTTP 400
 * PARSE_ERROR) before anything is stored, on both bindings and on every store, whichever part of the request
 * carries it: message metadata (the canonical SendMessage fast path), a part's `data`, the request's metadata,
 * an unknown field, a push-config body. No single request may poison a scope: GetTask and ListTasks of the
 * scope keep working afterwards.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setKey } from '../../../src/idempotency/index.js';
import { ManualClock } from '../../../src/store/clock.js';
import {
  ANON,
  BINDINGS,
  freshKey,
  getTask,
  makeServer,
  send,
  taskOf,
  uid,
  userMessage,
  type Binding,
  type TestServer,
} from '../duplicate-safety/helpers.js';
import { closeStores, openStore, STORE_KINDS, type OpenedStore } from './server-stores.js';
import {
  isParseError,
  listTasksRequest,
  nestedArrays,
  nestedObjects,
  readCall,
  restTextRequest,
  rpcTextRequest,
  sendText,
} from './wire.js';

afterAll(closeStores);

describe.each(STORE_KINDS)('deep JSON is refused at the door (%s store)', (kind) => {
  let t: TestServer;
  let opened: OpenedStore;
  beforeEach(async () => {
    const clock = new ManualClock();
    opened = await openStore(kind, clock);
    t = makeServer({ clock, store: opened.store, card: { ...CARD } });
  });
  afterEach(async () => {
    await t.close();
    await opened.cleanup();
  });

  /** A completed task in the scope, then the scope's health after a hostile request. */
  async function expectScopeHealthy(binding: Binding, before: string): Promise<void> {
    const got = taskOf(await getTask(t.ep, binding, before));
    expect(got.id).toBe(before);
    const list = await readCall(binding, await t.ep.fetch(listTasksRequest(t.ep, binding)));
    expect(list.ok).toBe(true);
    const tasks = (list.ok ? (list.result as { tasks: { id: string }[] }).tasks : []).map((x) => x.id);
    expect(tasks).toEqual([before]);
  }

  it.each(BINDINGS)(
    '%s: a 10 KB message whose metadata is nested 5,000 deep: parse error, nothing stored, agent never ran',
    async (binding) => {
      const first = taskOf(await send(t.ep, binding, userMessage('hello')));
      const key = freshKey();
      // `metadata.deep` is 5,000 arrays deep: 10 KB of brackets, in the canonical form the fast path reads.
      const res = await readCall(binding, await t.ep.fetch(sendText(t.ep, binding, deepMetadataParams(key))));
      expect(isParseError(res, binding), JSON.stringify(res)).toBe(true);
      expect(t.agent.executions).toHaveLength(1);
      expect(await t.store.getKey(ANON, key)).toBeUndefined();
      await expectScopeHealthy(binding, first.id);
    },
  );

  it.each(BINDINGS)('%s: a part whose data is nested 5,000 deep is refused the same way', async (binding) => {
    const first = taskOf(await send(t.ep, binding, userMessage('hello')));
    const key = freshKey();
    const msg = setKey({ messageId: uid('msg'), role: 'ROLE_USER', parts: [{ text: 'x' }] } as const, key);
    const text = JSON.stringify({ message: msg }).replace(
      '[{"text":"x"}]',
      `[{"data":${nestedObjects(5000)}}]`,
    );
    const res = await readCall(binding, await t.ep.fetch(sendText(t.ep, binding, text)));
    expect(isParseError(res, binding), JSON.stringify(res)).toBe(true);
    expect(t.agent.executions).toHaveLength(1);
    expect(await t.store.getKey(ANON, key)).toBeUndefined();
    await expectScopeHealthy(binding, first.id);
  });

  it.each(BINDINGS)('%s: deep request metadata or an unknown deep field is refused too', async (binding) => {
    const first = taskOf(await send(t.ep, binding, userMessage('hello')));
    const msg = JSON.stringify(userMessage('x'));
    for (const extra of [`"metadata":{"d":${nestedArrays(200)}}`, `"unknownField":${nestedArrays(200)}`]) {
      const res = await readCall(
        binding,
        await t.ep.fetch(sendText(t.ep, binding, `{"message":${msg},${extra}}`)),
      );
      expect(isParseError(res, binding), JSON.stringify(res)).toBe(true);
    }
    expect(t.agent.executions).toHaveLength(1);
    await expectScopeHealthy(binding, first.id);
  });

  it.each(BINDINGS)(
    '%s: a push-config body nested too deep is refused and stores nothing',
    async (binding) => {
      const first = taskOf(await send(t.ep, binding, userMessage('hello')));
      const body = `{"taskId":"${first.id}","url":"https://example.com/hook","authentication":{"scheme":"Bearer","x":${nestedArrays(100)}}}`;
      const req =
        binding === 'jsonrpc'
          ? rpcTextRequest(t.ep, 'CreateTaskPushNotificationConfig', body)
          : restTextRequest(t.ep, 'POST', `/tasks/${first.id}/pushNotificationConfigs`, body);
      const res = await readCall(binding, await t.ep.fetch(req));
      expect(isParseError(res, binding), JSON.stringify(res)).toBe(true);
      expect(await t.store.listPushConfigs(ANON, first.id)).toEqual([]);
      await expectScopeHealthy(binding, first.id);
    },
  );

  it.each(BINDINGS)(
    '%s: the limit is on the whole document: exactly 64 levels are served, 65 are refused',
    async (binding) => {
      // JSON-RPC wraps params in an envelope (1 level) and REST does not: `{params:{message:{metadata:{d:…}}}}`.
      const around = binding === 'jsonrpc' ? 4 : 3;
      const fits = 64 - around; // the documented limit (docs/semantics.md §2, ADR 0031)
      const msg = JSON.stringify(userMessage('edge'));
      const at = (n: number) => `{"message":${msg.slice(0, -1)},"metadata":{"d":${nestedArrays(n)}}}}`;
      const ok = await readCall(binding, await t.ep.fetch(sendText(t.ep, binding, at(fits))));
      expect(ok.ok, JSON.stringify(ok)).toBe(true);
      const over = await readCall(binding, await t.ep.fetch(sendText(t.ep, binding, at(fits + 1))));
      expect(isParseError(over, binding), JSON.stringify(over)).toBe(true);
      expect(t.agent.executions).toHaveLength(1);
    },
  );
});

const CARD = {
  name: 'hostile-input test agent',
  description: 'refuses what it cannot keep',
  capabilities: { streaming: true, pushNotifications: true },
};

/** SendMessage params: a keyed message whose `metadata` holds the key and a 5,000-deep array (10 KB). */
function deepMetadataParams(key: string): string {
  const msg = { messageId: uid('msg'), role: 'ROLE_USER', parts: [{ text: 'deep' }] };
  const head = JSON.stringify(msg).slice(0, -1);
  const meta = `{"a2a-rust.com/idempotency-key":"${key}","deep":${nestedArrays(5000)}}`;
  return `{"message":${head},"metadata":${meta},"extensions":["https://a2a-rust.com/extensions/idempotency/v1"]}}`;
}
