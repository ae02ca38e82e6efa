/**
 * Our client drives an `@a2a-js/sdk@1.3.0` server through every A2A v1.0 operation, over both bindings.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient } from '../../src/client/index.js';
import type { StreamResponse } from '../../src/protocol/model.js';
import { TaskNotFoundError, UnsupportedOperationError } from '../../src/protocol/errors.js';
import { IDEMPOTENCY_METADATA_KEY } from '../../src/idempotency/index.js';
import { startJsAgent } from './harness/a2a-js-server.js';
import type { JsAgent } from './harness/a2a-js-server.js';

let agent: JsAgent;
beforeAll(async () => {
  agent = await startJsAgent();
});
afterAll(async () => {
  await agent.close();
});

async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const ev of stream) out.push(ev);
  return out;
}

describe('card resolution against @a2a-js/sdk', () => {
  it('fetches the well-known card, picks JSON-RPC first, and sees no idempotency advertisement', async () => {
    const client = await A2AClient.fromCardUrl(agent.url);
    expect(client.card?.name).toBe('js-counter');
    expect(client.endpoint).toEqual({ binding: 'JSONRPC', url: agent.jsonRpcUrl, tenant: undefined });
    expect(client.peerHonoursKeys).toBe(false);
  });

  it('honours a binding preference', async () => {
    const client = await A2AClient.fromCardUrl(agent.url, { preferredBindings: ['HTTP+JSON'] });
    expect(client.endpoint.binding).toBe('HTTP+JSON');
  });
});

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('every operation over %s', (binding) => {
  let client: A2AClient;
  beforeAll(async () => {
    client = await A2AClient.fromCardUrl(agent.url, {
      preferredBindings: [binding],
      attemptTimeoutMs: 5_000,
    });
  });

  it('SendMessage: a completed task, run once, unkeyed (the peer does not honour keys)', async () => {
    const before = agent.executions.length;
    const res = await client.send(`hello ${binding}`);
    expect('task' in res).toBe(true);
    if (!('task' in res)) return;
    expect(res.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(res.task.artifacts?.[0]?.parts).toEqual([{ text: `hello ${binding}` }]);
    expect(agent.executions.length).toBe(before + 1);
    expect(agent.executions.at(-1)?.metadata?.[IDEMPOTENCY_METADATA_KEY]).toBeUndefined();
  });

  it('SendMessage answered by a message', async () => {
    const res = await client.send('reply');
    expect('message' in res && res.message.parts).toEqual([{ text: 'hi' }]);
  });

  it('SendStreamingMessage: task, updates, and the end at COMPLETED', async () => {
    const events = await collect(client.sendStream('slow:3'));
    expect('task' in events[0]!).toBe(true);
    const chunks = events.flatMap((e) => ('artifactUpdate' in e ? e.artifactUpdate.artifact.parts : []));
    expect(chunks).toEqual([{ text: 'chunk0' }, { text: 'chunk1' }, { text: 'chunk2' }]);
    const last = events.at(-1)!;
    expect('statusUpdate' in last && last.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('a stream ends at INPUT_REQUIRED', async () => {
    const events = await collect(client.sendStream('ask'));
    const last = events.at(-1)!;
    expect('statusUpdate' in last && last.statusUpdate.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });

  it('GetTask, ListTasks, and TaskNotFound rebuilt by reason', async () => {
    const res = await client.send('to get');
    if (!('task' in res)) throw new Error('expected a task');
    const task = await client.getTask(res.task.id, { historyLength: 1 });
    expect(task.id).toBe(res.task.id);
    expect(task.history?.length ?? 0).toBeLessThanOrEqual(1);
    const list = await client.listTasks({ pageSize: 100 });
    expect(list.tasks.some((t) => t.id === res.task.id)).toBe(true);
    expect(typeof list.nextPageToken).toBe('string');
    await expect(client.getTask('no-such-task')).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('SubscribeToTask and CancelTask on a running task', async () => {
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

  it('push notification configs: create, get, list, delete', async () => {
    // A task parked in INPUT_REQUIRED publishes nothing more, so no push is attempted to the dummy URL.
    const res = await client.send('ask');
    if (!('task' in res)) throw new Error('expected a task');
    const taskId = res.task.id;
    const created = await client.createPushConfig({
      taskId,
      id: 'cfg-1',
      url: 'http://127.0.0.1:9/hook',
      token: 't',
    });
    expect(created.url).toBe('http://127.0.0.1:9/hook');
    expect((await client.getPushConfig(taskId, 'cfg-1')).id).toBe('cfg-1');
    expect((await client.listPushConfigs(taskId)).configs.map((c) => c.id)).toEqual(['cfg-1']);
    await client.deletePushConfig(taskId, 'cfg-1');
    expect((await client.listPushConfigs(taskId)).configs).toEqual([]);
  });

  it('GetExtendedAgentCard on an agent without one: UnsupportedOperationError', async () => {
    await expect(client.getExtendedCard()).rejects.toBeInstanceOf(UnsupportedOperationError);
  });
});
