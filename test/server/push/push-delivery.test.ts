/**
 * Push delivery end to end (docs/semantics.md §5, ADR 0045): a config given inline with SendMessage and one
 * created with CreateTaskPushNotificationConfig both deliver every event of the task, from the first on, in
 * order, over JSON-RPC and REST, for blocking, non-blocking and streaming sends, to a real loopback receiver, with
 * the config's credentials and the signed Standard Webhooks headers.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { A2AServer } from '../../../src/server/create-server.js';
import { parseWebhookSecret, webhookSignatureMatches } from '../../../src/webhook-wire/webhook-wire.js';
import { rpcJson, rpcRequest, restRequest } from '../../helpers/http.js';
import { startReceiver, type Receiver } from './receiver.js';
import { FAST_PUSH, TEST_SECRET, gate, pushServer, release } from './push-server.js';

type Binding = 'jsonrpc' | 'rest';
type Mode = 'blocking' | 'non-blocking' | 'streaming';

let receiver: Receiver;
let server: A2AServer;
const ANON = { tenant: '', owner: '' };

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});
afterEach(async () => {
  await server?.close();
});

function message(text: string) {
  return { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] };
}

/** Sends `text`; returns the task id (a streaming send is read to its end). */
async function send(binding: Binding, mode: Mode, text: string, pushConfig?: object): Promise<string> {
  const params = {
    message: message(text),
    configuration: {
      ...(mode === 'non-blocking' ? { returnImmediately: true } : {}),
      ...(pushConfig ? { taskPushNotificationConfig: pushConfig } : {}),
    },
  };
  const streaming = mode === 'streaming';
  const req =
    binding === 'jsonrpc'
      ? rpcRequest(streaming ? 'SendStreamingMessage' : 'SendMessage', params)
      : restRequest('POST', streaming ? '/message:stream' : '/message:send', params);
  const res = await server.fetch(req);
  const text_ = await res.text();
  if (streaming) {
    const first = text_.split('\n').find((l) => l.startsWith('data:'))!;
    const data = JSON.parse(first.slice(5)) as { result?: { task?: { id: string } }; task?: { id: string } };
    return (data.result?.task ?? data.task)!.id;
  }
  const body = JSON.parse(text_) as { result?: { task: { id: string } }; task?: { id: string } };
  return (body.result?.task ?? body.task)!.id;
}

async function createConfig(binding: Binding, taskId: string, config: object): Promise<unknown> {
  const res = await server.fetch(
    binding === 'jsonrpc'
      ? rpcRequest('CreateTaskPushNotificationConfig', { taskId, ...config })
      : restRequest('POST', `/tasks/${taskId}/pushNotificationConfigs`, config),
  );
  return binding === 'jsonrpc' ? rpcJson(res) : res.json();
}

/** Waits until every event of the task reached the receiver under `path`, then checks what arrived. */
async function expectAllDelivered(taskId: string, path: string, auth?: string): Promise<void> {
  const store = server.handler.options.store;
  let record = await store.getTask(ANON, taskId);
  await receiver.until(() => receiver.firstAcks(taskId).length >= 3);
  record = await store.getTask(ANON, taskId);
  expect(record?.task.status.state).toBe('TASK_STATE_COMPLETED');
  await receiver.until(() => receiver.firstAcks(taskId).length === record!.seq);
  const events = await store.readEvents(ANON, taskId, 0);
  const mine = receiver.acknowledged.filter((r) => r.taskId === taskId);
  expect(mine.map((r) => r.seq)).toEqual(events.map((e) => e.seq));
  const key = parseWebhookSecret(TEST_SECRET);
  for (const [i, r] of mine.entries()) {
    expect(JSON.parse(r.body)).toEqual(events[i]!.event);
    expect(r.path).toBe(path);
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['webhook-id']).toBe(`${taskId}:${r.seq}`);
    expect(r.headers['x-a2a-notification-token']).toBe('tok-1');
    expect(r.headers.authorization).toBe(auth);
    const ts = Number(r.headers['webhook-timestamp']);
    expect(Math.abs(ts - Date.now() / 1000)).toBeLessThan(60);
    expect(
      webhookSignatureMatches(key, `${taskId}:${r.seq}`, ts, r.body, String(r.headers['webhook-signature'])),
    ).toBe(true);
  }
  // The receiver answered; the cursor moves once the dispatcher has read the answer.
  const configId = (await store.listPushConfigs(ANON, taskId))[0]!.id!;
  await vi.waitFor(async () =>
    expect(await store.getPushDelivery(ANON, taskId, configId)).toMatchObject({
      deliveredSeq: record!.seq,
      attempts: 0,
      givenUpEvents: 0,
    }),
  );
}

describe.each(['jsonrpc', 'rest'] as const)('push delivery over %s', (binding) => {
  it.each(['blocking', 'non-blocking', 'streaming'] as const)(
    'delivers every event of a %s send to an inline config, from the first on',
    async (mode) => {
      server = pushServer();
      const path = `/inline/${binding}/${mode}`;
      const taskId = await send(binding, mode, `inline ${binding} ${mode}`, {
        url: `${receiver.url}${path}`,
        token: 'tok-1',
        authentication: { scheme: 'Bearer', credentials: 'sekrit' },
      });
      await expectAllDelivered(taskId, path, 'Bearer sekrit');
    },
  );

  it.each(['blocking', 'non-blocking', 'streaming'] as const)(
    'delivers every event of a %s send to a config created while the task runs',
    async (mode) => {
      server = pushServer();
      const text = `created ${binding} ${mode} ${randomUUID()}`;
      gate(text);
      const path = `/created/${binding}/${mode}`;
      // A blocking or streaming send holds until the agent finishes: start it, create the config meanwhile.
      const started = mode === 'non-blocking' ? undefined : send(binding, mode, text);
      let taskId: string;
      if (started) {
        await new Promise((r) => setTimeout(r, 100));
        const page = await server.handler.listTasks({ pageSize: 10 }, ctx());
        taskId = page.tasks.find((t) =>
          t.history?.some((m) => m.parts[0] && 'text' in m.parts[0] && m.parts[0].text === text),
        )!.id;
      } else taskId = await send(binding, mode, text);
      await createConfig(binding, taskId, { id: 'c1', url: `${receiver.url}${path}`, token: 'tok-1' });
      release(text);
      if (started) expect(await started).toBe(taskId);
      await expectAllDelivered(taskId, path, undefined);
    },
  );

  it('refuses a webhook the SSRF guard refuses, with InvalidParams naming the reason', async () => {
    server = pushServer({ ...FAST_PUSH, allowPrivateTargets: false });
    const taskId = await send(binding, 'non-blocking', 'ssrf');
    for (const url of [
      'http://127.0.0.1:9/x',
      'http://[::ffff:10.0.0.1]/x',
      'http://169.254.169.254/latest',
      'http://localhost/x',
    ]) {
      const answer = (await createConfig(binding, taskId, { url })) as {
        error?: { code: number; message: string };
        code?: number;
        message?: string;
      };
      const err = binding === 'jsonrpc' ? answer.error! : answer;
      if (binding === 'jsonrpc') expect(err.code).toBe(-32602);
      else expect(answer).toMatchObject({ error: { code: 400 } });
      expect(JSON.stringify(answer)).toMatch(/url refused/);
    }
    // Inline too: nothing is created.
    const res = await server.fetch(
      binding === 'jsonrpc'
        ? rpcRequest('SendMessage', {
            message: message('inline ssrf'),
            configuration: { taskPushNotificationConfig: { url: 'http://10.1.2.3/hook' } },
          })
        : restRequest('POST', '/message:send', {
            message: message('inline ssrf'),
            configuration: { taskPushNotificationConfig: { url: 'http://10.1.2.3/hook' } },
          }),
    );
    expect(await res.text()).toMatch(/a private address/);
  });
});

function ctx() {
  return {
    tenant: '',
    principal: undefined,
    requestedExtensions: [],
    activatedExtensions: new Set<string>(),
    signal: new AbortController().signal,
  } as unknown as Parameters<A2AServer['handler']['listTasks']>[1];
}

describe('push options', () => {
  it('declares pushNotifications only when the server delivers', async () => {
    server = pushServer(FAST_PUSH, { push: false });
    expect(server.handler.agentCard.capabilities.pushNotifications).toBe(false);
    expect(server.handler.push).toBeUndefined();
    await server.close();
    server = pushServer();
    expect(server.handler.agentCard.capabilities.pushNotifications).toBe(true);
    expect(server.handler.push).toBeDefined();
  });

  it('refuses a signing secret that is not whsec_ base64, and header injection in credentials', async () => {
    expect(() => pushServer({ signingSecret: 'not-a-secret' })).toThrow(/whsec_/);
    server = pushServer();
    const taskId = await send('jsonrpc', 'non-blocking', 'inject');
    const answer = (await createConfig('jsonrpc', taskId, {
      url: `${receiver.url}/x`,
      authentication: { scheme: 'Bearer', credentials: 'a\r\nX-Evil: 1' },
    })) as { error?: { code: number; message: string } };
    expect(answer.error?.code).toBe(-32602);
    expect(answer.error?.message).toMatch(/control characters/);
  });
});
