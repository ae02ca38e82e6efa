/**
 * Interop: our client drives an `@a2a-js/sdk@1.3.0` gRPC server (`@a2a-js/sdk/server/grpc`) through every A2A v1.0
 * operation, choosing its GRPC interface from the card: send (a task and a message), stream, get, list, cancel,
 * subscribe, push-config CRUD and the extended card; that SDK's errors arrive as ours, by their ErrorInfo reason.
 * The SDK ignores idempotency keys and its card does not advertise them, so our sends go unkeyed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient } from '../../../src/client/index.js';
import { grpcTransport } from '../../../src/client/grpc/index.js';
import type { AgentCard } from '../../../src/protocol/agent-card.js';
import type { StreamResponse } from '../../../src/protocol/model.js';
import { parseAgentCard } from '../../../src/protocol/parse.js';
import {
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '../../../src/protocol/errors.js';
import { startJsGrpcAgent, type JsGrpcAgent } from './a2a-js-grpc-agent.js';

let agent: JsGrpcAgent;
let client: A2AClient;

beforeAll(async () => {
  agent = await startJsGrpcAgent();
  const card: AgentCard = parseAgentCard(agent.card);
  client = A2AClient.fromCard(card, {
    transports: [grpcTransport({ insecure: true })],
    attemptTimeoutMs: 5_000,
  });
});
afterAll(async () => {
  await agent.close();
});

async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const ev of stream) out.push(ev);
  return out;
}

describe('our client against the @a2a-js/sdk gRPC server', () => {
  it('chooses the GRPC interface, the only one the card lists; the peer does not honour keys', () => {
    expect(client.endpoint).toEqual({ binding: 'GRPC', url: agent.address, tenant: undefined });
    expect(client.peerHonoursKeys).toBe(false);
  });

  it('SendMessage: a completed task, run once', async () => {
    const before = agent.executions.length;
    const res = await client.send('hello grpc');
    if (!('task' in res)) throw new Error('expected a task');
    expect(res.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(res.task.artifacts?.[0]?.parts).toEqual([{ text: 'hello grpc' }]);
    expect(agent.executions.length).toBe(before + 1);
  });

  it('SendMessage answered by a message', async () => {
    const res = await client.send('reply');
    expect('message' in res && res.message.parts).toEqual([{ text: 'hi' }]);
  });

  it('SendStreamingMessage: task, chunks, the end at COMPLETED', async () => {
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

  it('GetTask, ListTasks, and TaskNotFound by reason', async () => {
    const res = await client.send('to get');
    if (!('task' in res)) throw new Error('expected a task');
    const task = await client.getTask(res.task.id, { historyLength: 1 });
    expect(task.id).toBe(res.task.id);
    const list = await client.listTasks({ pageSize: 100 });
    expect(list.tasks.some((t) => t.id === res.task.id)).toBe(true);
    await expect(client.getTask('no-such-task')).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('SubscribeToTask and CancelTask on a running task; a finished one is not cancelable', async () => {
    const res = await client.send('slow:40', { configuration: { returnImmediately: true } });
    if (!('task' in res)) throw new Error('expected a task');
    const id = res.task.id;
    const sub = client.subscribe(id);
    const first = (await sub.next()).value as StreamResponse;
    expect('task' in first && first.task.id).toBe(id);
    const canceled = await client.cancelTask(id);
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    const rest = await collect(sub);
    const last = rest.at(-1);
    expect(last && 'statusUpdate' in last && last.statusUpdate.status.state).toBe('TASK_STATE_CANCELED');
    const done = await client.send('finished');
    if (!('task' in done)) throw new Error('expected a task');
    await expect(client.cancelTask(done.task.id)).rejects.toBeInstanceOf(TaskNotCancelableError);
  });

  it('subscribing to a finished task: UnsupportedOperation', async () => {
    const res = await client.send('done');
    if (!('task' in res)) throw new Error('expected a task');
    await expect(collect(client.subscribe(res.task.id))).rejects.toBeInstanceOf(UnsupportedOperationError);
  });

  it('push notification configs: create, get, list, delete', async () => {
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

  it('GetExtendedAgentCard', async () => {
    const extended = await client.getExtendedCard();
    expect(extended.name).toBe('js-grpc-counter-extended');
  });
});
