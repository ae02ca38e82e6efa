/**
 * Our client against an `@a2a-js/sdk@1.3.0` agent that speaks only A2A v0.3 (its `legacyCompat` JSON-RPC layer),
 * for every operation v0.3 has (docs/guides/v03-peers.md "The client and v0.3 agents", ADR 0102, ADR 0103). The
 * agent is presented three ways: a v1.0 card offering only a 0.3 interface, a2a-js's own v0.3 card
 * (`legacyAgentCardRouter`) answered to the card fetch, and the bare v0.3 card shape of a v0.3-era server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient, ClientError } from '../../../src/client/index.js';
import type { StreamResponse } from '../../../src/protocol/model.js';
import { TaskNotFoundError } from '../../../src/protocol/errors.js';
import { IDEMPOTENCY_METADATA_KEY } from '../../../src/idempotency/index.js';
import { startJsAgent } from '../harness/a2a-js-server.js';
import type { JsAgent, JsAgentOptions } from '../harness/a2a-js-server.js';

async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const ev of stream) out.push(ev);
  return out;
}

const PRESENTATIONS: NonNullable<JsAgentOptions['present']>[] = [
  'v03-interfaces',
  'v03-legacy-card',
  'v03-card',
];

describe.each(PRESENTATIONS)('a v0.3-only @a2a-js/sdk agent (%s)', (present) => {
  let agent: JsAgent;
  let client: A2AClient;
  /** The `A2A-Version` and extension headers of every request the agent got. */
  const seen: { version: string | null; extensions: string | null; legacy: string | null }[] = [];
  beforeAll(async () => {
    agent = await startJsAgent({ present });
    client = await A2AClient.fromCardUrl(agent.url, {
      attemptTimeoutMs: 5_000,
      fetch: (input, init) => {
        const h = new Headers(init.headers);
        if (init.method === 'POST')
          seen.push({
            version: h.get('a2a-version'),
            extensions: h.get('a2a-extensions'),
            legacy: h.get('x-a2a-extensions'),
          });
        return fetch(input, init);
      },
    });
  });
  afterAll(async () => {
    await agent.close();
  });

  it('reads the card as a v0.3 agent: one JSON-RPC interface at 0.3, no key advertisement', () => {
    expect(client.card?.name).toBe('js-counter');
    expect(client.card?.supportedInterfaces.map((i) => [i.protocolBinding, i.protocolVersion])).toEqual([
      ['JSONRPC', '0.3'],
    ]);
    expect(client.endpoint).toEqual({ binding: 'JSONRPC', url: agent.jsonRpcUrl, tenant: undefined });
    expect(client.card?.capabilities.extendedAgentCard).toBe(true);
    expect(client.peerHonoursKeys).toBe(false);
  });

  it('message/send, blocking: a completed task, run once, sent with A2A-Version 0.3', async () => {
    const before = agent.executions.length;
    seen.length = 0;
    const res = await client.send(`hello ${present}`, { extensions: ['https://example.com/ext'] });
    if (!('task' in res)) throw new Error('expected a task');
    expect(res.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(res.task.artifacts?.[0]?.parts).toEqual([{ text: `hello ${present}` }]);
    expect(agent.executions.length).toBe(before + 1);
    expect(agent.executions.at(-1)?.metadata?.[IDEMPOTENCY_METADATA_KEY]).toBeUndefined();
    expect(seen).toEqual([
      { version: '0.3', extensions: 'https://example.com/ext', legacy: 'https://example.com/ext' },
    ]);
  });

  it('message/send answered by a message', async () => {
    const res = await client.send('reply');
    expect('message' in res && res.message.parts).toEqual([{ text: 'hi' }]);
  });

  it('message/send with returnImmediately (blocking: false): the task before it finished', async () => {
    const res = await client.send('slow:10', { configuration: { returnImmediately: true } });
    if (!('task' in res)) throw new Error('expected a task');
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(res.task.status.state);
    await client.cancelTask(res.task.id);
  });

  it('message/stream: the task, artifact chunks, the end at COMPLETED', async () => {
    const events = await collect(client.sendStream('slow:3'));
    expect('task' in events[0]!).toBe(true);
    const chunks = events.flatMap((e) => ('artifactUpdate' in e ? e.artifactUpdate.artifact.parts : []));
    expect(chunks).toEqual([{ text: 'chunk0' }, { text: 'chunk1' }, { text: 'chunk2' }]);
    const last = events.at(-1)!;
    expect('statusUpdate' in last && last.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('a stream ends at input-required', async () => {
    const events = await collect(client.sendStream('ask'));
    const last = events.at(-1)!;
    expect('statusUpdate' in last && last.statusUpdate.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('tasks/get, and TaskNotFound (-32001) as the same error class', async () => {
    const res = await client.send('to get');
    if (!('task' in res)) throw new Error('expected a task');
    const task = await client.getTask(res.task.id, { historyLength: 1 });
    expect(task.id).toBe(res.task.id);
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    await expect(client.getTask('no-such-task')).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('ListTasks has no v0.3 method: a ClientError, nothing sent', async () => {
    seen.length = 0;
    const err = await client.listTasks().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ClientError);
    expect((err as ClientError).code).toBe('OPERATION_NOT_IN_VERSION');
    expect(seen).toEqual([]);
  });

  it('tasks/resubscribe and tasks/cancel on a running task', async () => {
    const res = await client.send('slow:40', { configuration: { returnImmediately: true } });
    if (!('task' in res)) throw new Error('expected a task');
    const id = res.task.id;
    const sub = client.subscribe(id);
    const first = (await sub.next()).value as StreamResponse;
    expect('task' in first && first.task.id).toBe(id);
    const canceled = await client.cancelTask(id);
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    const rest: StreamResponse[] = [];
    for await (const ev of sub) rest.push(ev);
    const last = rest.at(-1);
    expect(last && 'statusUpdate' in last && last.statusUpdate.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('tasks/pushNotificationConfig/set, get, list, delete', async () => {
    const res = await client.send('ask');
    if (!('task' in res)) throw new Error('expected a task');
    const taskId = res.task.id;
    const created = await client.createPushConfig({
      taskId,
      id: 'cfg-1',
      url: 'http://127.0.0.1:9/hook',
      token: 't',
      authentication: { scheme: 'Bearer', credentials: 'c' },
    });
    expect(created).toMatchObject({ taskId, id: 'cfg-1', url: 'http://127.0.0.1:9/hook', token: 't' });
    expect(created.authentication?.scheme).toBe('Bearer');
    expect((await client.getPushConfig(taskId, 'cfg-1')).url).toBe('http://127.0.0.1:9/hook');
    expect((await client.listPushConfigs(taskId)).configs.map((c) => c.id)).toEqual(['cfg-1']);
    await client.deletePushConfig(taskId, 'cfg-1');
    expect((await client.listPushConfigs(taskId)).configs).toEqual([]);
  });

  it('agent/getAuthenticatedExtendedCard: the extended card, read into v1.0', async () => {
    const card = await client.getExtendedCard();
    expect(card.name).toBe('js-counter-extended');
    expect(card.supportedInterfaces[0]?.protocolVersion).toBe('0.3');
  });
});
