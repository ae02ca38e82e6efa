/**
 * Text a task store cannot hold is refused at the door, identically on every store (docs/semantics.md §2 "Input
 * refused at the door", ADR 0059): U+0000 (PostgreSQL's text columns refuse it, and the driver answered with an
 * error the server turned into INTERNAL) and an unpaired UTF-16 surrogate (UTF-8 has no form for it: the
 * PostgreSQL driver and SQLite store U+FFFD instead, so two different ids became one) in every id, the tenant,
 * the ListTasks filters and the keys of metadata, on both bindings. Each is answered -32602 / 400
 * INVALID_PARAMS naming the field, the same on memory, SQLite and PostgreSQL, and nothing is stored or run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setKey } from '../../../src/idempotency/index.js';
import { A2AError } from '../../../src/protocol/errors.js';
import { localCallContext } from '../../../src/server/call-context.js';
import { ManualClock } from '../../../src/store/clock.js';
import {
  ANON,
  BINDINGS,
  freshKey,
  getTask,
  makeServer,
  send,
  taskOf,
  userMessage,
  type TestServer,
} from '../duplicate-safety/helpers.js';
import { closeStores, openStore, STORE_KINDS, type OpenedStore, type StoreKind } from './server-stores.js';
import {
  LONE_HIGH,
  LONE_LOW,
  NUL,
  pageTokenAround,
  requestOf,
  restCarries,
  type UnstorableCall,
} from './unstorable-calls.js';
import { readCall, type CallAnswer } from './wire.js';

afterAll(closeStores);

const CARD = {
  name: 'unstorable-text test agent',
  description: 'refuses text no store can hold',
  capabilities: { streaming: true, pushNotifications: true },
};

const msg = (extra: Record<string, unknown> = {}) => ({ ...userMessage('hello'), ...extra });
const HOOK = 'https://hooks.example.com/h';

/** Every call with `bad` in one field, and the field the refusal names. */
function callsWith(bad: string, taskId: string): UnstorableCall[] {
  const key = freshKey();
  return [
    {
      label: 'messageId',
      method: 'SendMessage',
      params: { message: msg({ messageId: bad }) },
      field: 'message.messageId',
    },
    {
      label: 'contextId',
      method: 'SendMessage',
      params: { message: msg({ contextId: bad }) },
      field: 'message.contextId',
    },
    {
      label: 'taskId',
      method: 'SendMessage',
      params: { message: msg({ taskId: bad }) },
      field: 'message.taskId',
    },
    {
      label: 'a referenceTaskId',
      method: 'SendMessage',
      params: { message: msg({ referenceTaskIds: [taskId, bad] }) },
      field: 'message.referenceTaskIds[1]',
    },
    {
      label: 'the tenant of a send',
      method: 'SendMessage',
      params: { tenant: bad, message: msg() },
      field: 'tenant',
    },
    {
      label: 'a message metadata key (keyed send)',
      method: 'SendMessage',
      params: { message: setKey(msg({ metadata: { [bad]: 1 } }), key) },
      field: 'message.metadata',
    },
    {
      label: 'a nested message metadata key',
      method: 'SendMessage',
      params: { message: msg({ metadata: { outer: { [bad]: true } } }) },
      field: 'message.metadata.outer',
    },
    {
      label: "a part's metadata key",
      method: 'SendMessage',
      params: { message: msg({ parts: [{ text: 'x', metadata: { [bad]: 'v' } }] }) },
      field: 'message.parts[0].metadata',
    },
    {
      label: 'a request metadata key',
      method: 'SendMessage',
      params: { message: msg(), metadata: { [bad]: 'v' } },
      field: 'metadata',
    },
    {
      label: "an inline push config's id",
      method: 'SendMessage',
      params: { message: msg(), configuration: { taskPushNotificationConfig: { id: bad, url: HOOK } } },
      field: 'configuration.taskPushNotificationConfig.id',
    },
    { label: 'GetTask id', method: 'GetTask', params: { id: bad }, field: 'id' },
    { label: 'GetTask tenant', method: 'GetTask', params: { tenant: bad, id: taskId }, field: 'tenant' },
    { label: 'CancelTask id', method: 'CancelTask', params: { id: bad }, field: 'id' },
    {
      label: 'a CancelTask metadata key',
      method: 'CancelTask',
      params: { id: taskId, metadata: { [bad]: 1 } },
      field: 'metadata',
    },
    { label: 'SubscribeToTask id', method: 'SubscribeToTask', params: { id: bad }, field: 'id' },
    { label: 'ListTasks contextId', method: 'ListTasks', params: { contextId: bad }, field: 'contextId' },
    { label: 'ListTasks pageToken', method: 'ListTasks', params: { pageToken: bad }, field: 'pageToken' },
    { label: 'ListTasks tenant', method: 'ListTasks', params: { tenant: bad }, field: 'tenant' },
    {
      label: 'push config create: taskId',
      method: 'CreateTaskPushNotificationConfig',
      params: { taskId: bad, url: HOOK },
      field: 'taskId',
    },
    {
      label: 'push config create: id',
      method: 'CreateTaskPushNotificationConfig',
      params: { taskId, id: bad, url: HOOK },
      field: 'id',
    },
    {
      label: 'push config create: tenant',
      method: 'CreateTaskPushNotificationConfig',
      params: { tenant: bad, taskId, url: HOOK },
      field: 'tenant',
    },
    {
      label: 'push config get: id',
      method: 'GetTaskPushNotificationConfig',
      params: { taskId, id: bad },
      field: 'id',
    },
    {
      label: 'push config list: taskId',
      method: 'ListTaskPushNotificationConfigs',
      params: { taskId: bad },
      field: 'taskId',
    },
    {
      label: 'push config delete: taskId',
      method: 'DeleteTaskPushNotificationConfig',
      params: { taskId: bad, id: 'c1' },
      field: 'taskId',
    },
  ];
}

/** What a refusal looks like, reduced to what must be identical across stores. */
function refusal(a: CallAnswer): unknown {
  if (a.ok) return { ok: true, result: a.result };
  const e = a.error;
  return {
    httpStatus: a.httpStatus,
    code: e.code,
    reason: e.reason,
    fields: e.metadata?.fields,
    message: e.message,
  };
}

describe('text no store can hold is refused at the door, the same on every store', () => {
  const servers = new Map<StoreKind, { t: TestServer; opened: OpenedStore; taskId: string }>();
  beforeAll(async () => {
    for (const kind of STORE_KINDS) {
      const clock = new ManualClock();
      const opened = await openStore(kind, clock);
      const t = makeServer({ clock, store: opened.store, card: CARD });
      const taskId = taskOf(await send(t.ep, 'jsonrpc', userMessage('a task to name'))).id;
      servers.set(kind, { t, opened, taskId });
    }
  });
  afterAll(async () => {
    for (const { t, opened } of servers.values()) {
      await t.close();
      await opened.cleanup();
    }
  });

  const BAD = [
    ['U+0000', NUL],
    ['a lone high surrogate', LONE_HIGH],
    ['a lone low surrogate', LONE_LOW],
  ] as const;

  describe.each(BINDINGS)('%s', (binding) => {
    it.each(BAD)(
      '%s in any field: INVALID_PARAMS naming it, identical on memory, SQLite and PostgreSQL',
      async (_, bad) => {
        const labels = callsWith(bad, 'x').map((c) => c.label);
        for (const label of labels) {
          const answers = new Map<StoreKind, unknown>();
          let field = '';
          for (const [kind, { t, taskId }] of servers) {
            const call = callsWith(bad, taskId).find((c) => c.label === label)!;
            if (binding === 'rest' && !restCarries(call, bad)) continue;
            field = call.field;
            const answer = await readCall(binding, await t.ep.fetch(requestOf(t.ep, binding, call)));
            answers.set(kind, refusal(answer));
          }
          if (answers.size === 0) continue;
          const expected = {
            // JSON-RPC answers an error with HTTP 200; REST with the error's status (A2A v1.0).
            httpStatus: binding === 'jsonrpc' ? 200 : 400,
            code: binding === 'jsonrpc' ? -32602 : undefined,
            reason: 'INVALID_PARAMS',
            fields: field,
          };
          for (const [kind, got] of answers) {
            expect(got, `${label} on ${kind}`).toMatchObject(expected);
            expect((got as { message: string }).message, `${label} on ${kind}`).toContain(`${field}: `);
          }
          expect(new Set([...answers.values()].map((a) => JSON.stringify(a))).size, label).toBe(1);
        }
        for (const [kind, { t, opened, taskId }] of servers) {
          // Only the seed task ever ran; it is still readable, and nothing else was stored.
          expect(t.agent.executions, kind).toHaveLength(1);
          expect(taskOf(await getTask(t.ep, binding, taskId)).id).toBe(taskId);
          expect(
            (await opened.store.listTasks(ANON, { pageSize: 10 })).records.map((r) => r.task.id),
          ).toEqual([taskId]);
          expect(await opened.store.listPushConfigs(ANON, taskId)).toEqual([]);
        }
      },
    );

    it('a page token whose position holds U+0000 is refused the same way on every store', async () => {
      for (const [kind, { t }] of servers) {
        const call: UnstorableCall = {
          label: 'crafted page token',
          method: 'ListTasks',
          params: { pageToken: pageTokenAround(NUL) },
          field: 'pageToken',
        };
        const got = refusal(await readCall(binding, await t.ep.fetch(requestOf(t.ep, binding, call))));
        expect(got, kind).toMatchObject({ reason: 'INVALID_PARAMS', fields: 'pageToken' });
      }
    });
  });

  it('a keyed send refused for its text claims no key on any store', async () => {
    for (const [kind, { t, opened }] of servers) {
      const key = freshKey();
      const call: UnstorableCall = {
        label: 'keyed contextId',
        method: 'SendMessage',
        params: { message: setKey(msg({ contextId: NUL }), key) },
        field: 'message.contextId',
      };
      const got = refusal(await readCall('jsonrpc', await t.ep.fetch(requestOf(t.ep, 'jsonrpc', call))));
      expect(got, kind).toMatchObject({
        code: -32602,
        reason: 'INVALID_PARAMS',
        fields: 'message.contextId',
      });
      expect(await opened.store.getKey(ANON, key), kind).toBeUndefined();
    }
  });

  it('in-process sends (server.handler) are refused the same way, naming the field', async () => {
    const cases: [string, () => Promise<unknown>][] = [];
    for (const [kind, { t }] of servers) {
      const handler = t.server.handler;
      cases.push(
        [
          `${kind}: message.contextId`,
          () => handler.sendMessage({ message: msg({ contextId: NUL }) }, localCallContext()),
        ],
        [
          `${kind}: message.metadata`,
          () => handler.sendMessage({ message: msg({ metadata: { [LONE_HIGH]: 1 } }) }, localCallContext()),
        ],
        [
          `${kind}: tenant`,
          () => handler.sendMessage({ message: msg() }, localCallContext({ tenant: LONE_LOW })),
        ],
      );
    }
    for (const [label, run] of cases) {
      const err = await run().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err, label).toBeInstanceOf(A2AError);
      expect((err as A2AError).reason, label).toBe('INVALID_PARAMS');
      expect((err as A2AError).metadata?.fields, label).toBe(label.split(': ')[1]);
    }
    for (const [kind, { t }] of servers) expect(t.agent.executions, kind).toHaveLength(1);
  });

  it('ordinary text passes: a paired surrogate (an emoji) and other control characters are kept as sent', async () => {
    for (const [kind, { t }] of servers) {
      const contextId = `ctx-\u{1F600}-\u0001-${kind}`;
      const task = taskOf(
        await send(t.ep, 'rest', userMessage('hi', { contextId, metadata: { 'k\u{1F600}': 1 } })),
      );
      expect(task.contextId, kind).toBe(contextId);
      const again = taskOf(await getTask(t.ep, 'jsonrpc', task.id));
      expect(again.contextId, kind).toBe(contextId);
    }
  });
});
