/**
 * A message that cannot be digested or serialised is refused at claim time (-32602 / 400 INVALID_PARAMS), never
 * after the agent ran, and leaves nothing behind: no task, no key, no poisoned scope. The wire cannot carry such
 * values (JSON has no BigInt and no cycles, and deep nesting is refused as a parse error), so these come in
 * through the in-process API (`server.handler`), on every store.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { setKey } from '../../../src/idempotency/index.js';
import { A2AError } from '../../../src/protocol/errors.js';
import type { JsonObject, Message } from '../../../src/protocol/model.js';
import type { TaskPushNotificationConfig } from '../../../src/protocol/requests.js';
import { localCallContext } from '../../../src/server/call-context.js';
import { ManualClock } from '../../../src/store/clock.js';
import {
  ANON,
  BINDINGS,
  freshKey,
  getTask,
  makeServer,
  seedTask,
  send,
  taskOf,
  uid,
  userMessage,
  type TestServer,
} from '../duplicate-safety/helpers.js';
import { closeStores, openStore, STORE_KINDS, type OpenedStore } from './server-stores.js';
import { listTasksRequest, readCall } from './wire.js';

afterAll(closeStores);

/** Metadata nested `depth` objects deep under `d`. */
function deepObject(depth: number): JsonObject {
  let v: JsonObject = { leaf: true };
  for (let i = 1; i < depth; i++) v = { d: v };
  return v;
}

function cyclic(): JsonObject {
  const o: Record<string, unknown> = { name: 'loop' };
  o.self = o;
  return o;
}

/** Values no JSON document can hold, with the field the refusal must name. */
const HOSTILE: { what: string; field: string; message: () => Message }[] = [
  {
    what: 'a BigInt in metadata',
    field: 'message.metadata.n',
    message: () => userMessage('x', { metadata: { n: 10n } as unknown as JsonObject }),
  },
  {
    what: 'cyclic metadata',
    field: 'message.metadata.loop',
    message: () => userMessage('x', { metadata: { loop: cyclic() } }),
  },
  {
    what: "a part's data nested 1,500 deep (past the digest's own bound)",
    field: 'message.parts[0].data',
    message: () => ({ messageId: uid('m'), role: 'ROLE_USER', parts: [{ data: deepObject(1500) }] }),
  },
  {
    what: 'metadata nested 100 deep (past the wire limit of 64)',
    field: 'message.metadata.deep',
    message: () => userMessage('x', { metadata: { deep: deepObject(100) } }),
  },
  {
    what: 'a value whose toJSON throws',
    field: 'message.metadata.bad',
    message: () =>
      userMessage('x', {
        metadata: {
          bad: {
            toJSON() {
              throw new Error('no');
            },
          },
        } as unknown as JsonObject,
      }),
  },
  {
    what: 'a non-finite number',
    field: 'message.parts[1].data.x',
    message: () => ({
      messageId: uid('m'),
      role: 'ROLE_USER',
      parts: [{ text: 'x' }, { data: { x: Number.NaN } }],
    }),
  },
];

describe.each(STORE_KINDS)('undigestible messages are refused at claim time (%s store)', (kind) => {
  let t: TestServer;
  let opened: OpenedStore;
  beforeEach(async () => {
    const clock = new ManualClock();
    opened = await openStore(kind, clock);
    t = makeServer({ clock, store: opened.store });
  });
  afterEach(async () => {
    await t.close();
    await opened.cleanup();
  });

  async function refusal(p: Promise<unknown>): Promise<A2AError> {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!(err instanceof A2AError)) throw new Error(`expected an A2AError, got ${String(err)}`);
    return err;
  }

  it.each(HOSTILE)('a new keyed send with $what: -32602 naming the field, nothing stored', async (h) => {
    const before = taskOf(await send(t.ep, 'jsonrpc', userMessage('hello')));
    const key = freshKey();
    const err = await refusal(
      t.server.handler.sendMessage({ message: setKey(h.message(), key) }, localCallContext()),
    );
    expect([err.code, err.httpStatus, err.reason]).toEqual([-32602, 400, 'INVALID_PARAMS']);
    expect(err.message).toContain(h.field);
    expect(err.metadata?.fields?.startsWith(h.field)).toBe(true);
    expect(t.agent.executions).toHaveLength(1);
    expect(await t.store.getKey(ANON, key)).toBeUndefined();
    const page = await t.store.listTasks(ANON, { pageSize: 10 });
    expect(page.records.map((r) => r.task.id)).toEqual([before.id]);
    // The scope is not poisoned: reads over both bindings keep working.
    for (const binding of BINDINGS) {
      expect(taskOf(await getTask(t.ep, binding, before.id)).id).toBe(before.id);
      expect((await readCall(binding, await t.ep.fetch(listTasksRequest(t.ep, binding)))).ok).toBe(true);
    }
    // The key protected nothing, so it is free: a good message under it runs.
    const good = await t.server.handler.sendMessage(
      { message: setKey(userMessage('fine'), key) },
      localCallContext(),
    );
    expect('task' in good && good.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(t.agent.executions).toHaveLength(2);
  });

  it.each(HOSTILE)('an unkeyed send with $what is refused the same way', async (h) => {
    const err = await refusal(t.server.handler.sendMessage({ message: h.message() }, localCallContext()));
    expect(err.reason).toBe('INVALID_PARAMS');
    expect(t.agent.executions).toHaveLength(0);
    expect((await t.store.listTasks(ANON, { pageSize: 10 })).totalSize).toBe(0);
  });

  it('a push config sent inline with the message is checked the same way', async () => {
    // A second server on the same store whose card offers push; closed last, since closing closes the store.
    const push = makeServer({
      clock: t.clock,
      store: t.store,
      card: { name: 'push', description: 'push', capabilities: { pushNotifications: true } },
    });
    try {
      const key = freshKey();
      const inline = {
        url: 'https://hooks.example.com/x',
        authentication: { scheme: 'Bearer', credentials: 7n },
      };
      const err = await refusal(
        push.server.handler.sendMessage(
          {
            message: setKey(userMessage('x'), key),
            configuration: { taskPushNotificationConfig: inline as unknown as TaskPushNotificationConfig },
          },
          localCallContext(),
        ),
      );
      expect(err.reason).toBe('INVALID_PARAMS');
      expect(err.metadata?.fields).toBe(
        'configuration.taskPushNotificationConfig.authentication.credentials',
      );
      expect(push.agent.executions).toHaveLength(0);
      expect(await t.store.getKey(ANON, key)).toBeUndefined();
      expect((await t.store.listTasks(ANON, { pageSize: 10 })).totalSize).toBe(0);
    } finally {
      await push.close();
    }
  });

  it.each(HOSTILE)(
    'a keyed continuation with $what: refused before the key is claimed or the task moves',
    async (h) => {
      const { task } = await seedTask(t.store, 'TASK_STATE_INPUT_REQUIRED');
      const before = await t.store.getTask(ANON, task.id);
      const key = freshKey();
      const msg = setKey({ ...h.message(), taskId: task.id }, key);
      const err = await refusal(t.server.handler.sendMessage({ message: msg }, localCallContext()));
      expect(err.reason).toBe('INVALID_PARAMS');
      expect(t.agent.executions).toHaveLength(0);
      expect(await t.store.getKey(ANON, key)).toBeUndefined();
      const after = await t.store.getTask(ANON, task.id);
      expect([after?.fence, after?.seq, after?.task.status.state]).toEqual([
        before?.fence,
        before?.seq,
        'TASK_STATE_INPUT_REQUIRED',
      ]);
    },
  );
});
