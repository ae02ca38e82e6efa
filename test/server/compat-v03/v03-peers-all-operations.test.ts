/**
 * Every operation of an `@a2a-js/sdk` v0.3 client against our compat server, over both v0.3 bindings (JSON-RPC
 * with LegacyJsonRpcTransport, HTTP+JSON with LegacyRestTransport; docs/guides/v03-peers.md, ADR 0098, ADR 0100):
 * send blocking and not, stream, get, cancel of a running task, resubscribe, push config set/get/list/delete with
 * a real delivery to a webhook receiver on 127.0.0.1, and the extended card.
 */
import { LegacyJsonRpcTransport, LegacyRestTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../push/receiver.js';
import { compatServer, jsSend, release, STATE, taskOf, until } from './v03-peer-fixtures.js';

const server = compatServer();
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

type Transport = LegacyJsonRpcTransport | LegacyRestTransport;
const transports: [string, () => Transport][] = [
  ['JSON-RPC', () => new LegacyJsonRpcTransport({ endpoint: server.url })],
  ['HTTP+JSON', () => new LegacyRestTransport({ endpoint: server.url })],
];

async function collect(events: AsyncIterable<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const e of events) out.push(e);
  return out;
}

/** The state of the last status a stream carried (a task or a status update). */
function lastState(events: unknown[]): number | undefined {
  for (const e of [...events].reverse()) {
    const p = (e as { payload?: { $case: string; value: { status?: { state: number } } } }).payload;
    if (p?.value.status) return p.value.status.state;
  }
  return undefined;
}

describe.each(transports)('a v0.3 %s peer', (name, make) => {
  const t = () => make();
  const id = (s: string) => `${name}-${s}-${Math.random().toString(36).slice(2)}`;

  it('sends blocking: the task comes back COMPLETED', async () => {
    const task = taskOf(await t().sendMessage(jsSend(id('b'), 'hello')));
    expect(task.status.state).toBe(STATE.COMPLETED);
  });

  it('sends without blocking, then gets the task (with historyLength) once done', async () => {
    const task = taskOf(await t().sendMessage(jsSend(id('nb'), 'slow', { returnImmediately: true })));
    expect([STATE.SUBMITTED, STATE.WORKING]).toContain(task.status.state);
    release();
    await until(async () => {
      const got = await t().getTask({ tenant: '', id: task.id, historyLength: 1 });
      return (got as unknown as { status: { state: number } }).status.state === STATE.COMPLETED;
    });
    const got = (await t().getTask({ tenant: '', id: task.id, historyLength: 1 })) as unknown as {
      history: unknown[];
    };
    expect(got.history.length).toBeLessThanOrEqual(1);
  });

  it('streams a send to its end', async () => {
    const events = await collect(t().sendMessageStream(jsSend(id('s'), 'hello')));
    expect(events.length).toBeGreaterThan(0);
    expect(lastState(events)).toBe(STATE.COMPLETED);
  });

  it('cancels a running task: the agent waited until cancelled', async () => {
    const task = taskOf(await t().sendMessage(jsSend(id('c'), 'wait', { returnImmediately: true })));
    await until(async () => {
      const got = (await t().getTask({ tenant: '', id: task.id, historyLength: undefined })) as unknown as {
        status: { state: number };
      };
      return got.status.state === STATE.WORKING;
    });
    const canceled = (await t().cancelTask({ tenant: '', id: task.id, metadata: undefined })) as unknown as {
      status: { state: number };
    };
    expect(canceled.status.state).toBe(STATE.CANCELED);
  });

  it('resubscribes to a running task and follows it to the end', async () => {
    const task = taskOf(await t().sendMessage(jsSend(id('r'), 'slow', { returnImmediately: true })));
    const events = collect(t().resubscribeTask({ tenant: '', id: task.id }));
    await new Promise((r) => setTimeout(r, 100));
    release();
    const got = await events;
    expect(got.length).toBeGreaterThan(0);
    expect(lastState(got)).toBe(STATE.COMPLETED);
  });

  it('sets, gets, lists and deletes a push config, and the webhook receives the task', async () => {
    const task = taskOf(await t().sendMessage(jsSend(id('p'), 'slow', { returnImmediately: true })));
    const configId = id('cfg');
    const cfg = { tenant: '', id: configId, taskId: task.id, url: `${receiver.url}/hook`, token: 'tok-1' };
    const set = (await t().createTaskPushNotificationConfig(cfg as never)) as unknown as {
      id: string;
      url: string;
    };
    expect(set.id).toBe(configId);
    expect(set.url).toBe(cfg.url);
    const got = (await t().getTaskPushNotificationConfig({
      tenant: '',
      taskId: task.id,
      id: configId,
    })) as unknown as {
      id: string;
    };
    expect(got.id).toBe(configId);
    const list = (await t().listTaskPushNotificationConfig({
      tenant: '',
      taskId: task.id,
      pageSize: 0,
      pageToken: '',
    })) as unknown as { configs: { id: string }[] };
    expect(list.configs.map((c) => c.id)).toEqual([configId]);
    release();
    await receiver.until((r) =>
      r.acknowledged.some((x) => x.body.includes(task.id) && x.body.includes('COMPLETED')),
    );
    await t().deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: configId });
    const after = (await t().listTaskPushNotificationConfig({
      tenant: '',
      taskId: task.id,
      pageSize: 0,
      pageToken: '',
    })) as unknown as { configs: unknown[] };
    expect(after.configs).toEqual([]);
  });

  it('answers the extended card', async () => {
    const card = (await t().getExtendedAgentCard({ tenant: '' })) as unknown as {
      name: string;
      supportedInterfaces: { protocolBinding: string }[];
      skills: { id: string }[];
    };
    expect(card.name).toBe('v03-peer');
    expect(card.skills.map((s) => s.id)).toEqual(['secret']);
    expect(card.supportedInterfaces.map((i) => i.protocolBinding)).toContain('JSONRPC');
  });

  it('refuses an unknown task with TaskNotFound', async () => {
    await expect(t().getTask({ tenant: '', id: 'no-such-task', historyLength: undefined })).rejects.toThrow(
      /not found/i,
    );
  });

  it('keeps the message text through the translation', async () => {
    const task = taskOf(await t().sendMessage(jsSend(id('x'), 'kept')));
    const got = JSON.stringify(await t().getTask({ tenant: '', id: task.id, historyLength: undefined }));
    expect(got).toContain('echo: kept');
  });
});
