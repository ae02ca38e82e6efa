/**
 * Interop: the official `@a2a-js/sdk@1.3.0` gRPC client (`@a2a-js/sdk/client/grpc`) drives our gRPC server on
 * loopback through every operation: send (blocking and non-blocking), stream, get, list, cancel, subscribe,
 * push-config CRUD and the extended card; errors arrive as the SDK's own classes. The client finds the gRPC
 * interface on our card (`grpcInterface`), as a client of a real deployment would.
 */
import {
  GetTaskPushNotificationConfigRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTasksRequest,
  SendMessageRequest,
  TaskPushNotificationConfig,
  TaskState,
  type Message,
  type StreamResponse,
  type Task,
} from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, type Client } from '@a2a-js/sdk/client';
import { GrpcTransportFactory } from '@a2a-js/sdk/client/grpc';
import { TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../../src/cli/agents/index.js';
import { createA2AServer, type A2AServer } from '../../../src/server/index.js';
import { serveNode, type NodeServerHandle } from '../../../src/server/node/index.js';
import { serveGrpc, type GrpcServerHandle } from '../../../src/server/grpc/index.js';
import { checkPortFree } from './free-port.js';
import { closeNode } from '../../helpers/close-node.js';

const agent = createAgent('tck', { pushNotifications: true });
let server: A2AServer;
let node: NodeServerHandle;
let grpc: GrpcServerHandle;
let client: Client;

beforeAll(async () => {
  const port = await checkPortFree();
  server = createA2AServer({
    agent: agent.executor,
    card: agent.card,
    extendedCard: agent.extendedCard!,
    grpcInterface: { url: `127.0.0.1:${port}` },
  });
  grpc = await serveGrpc(server, { port });
  node = await serveNode(server.fetch, { port: 0 });
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new GrpcTransportFactory()],
      preferredTransports: ['GRPC'],
    }),
  );
  client = await factory.createFromUrl(node.url);
});

afterAll(async () => {
  await Promise.all([closeNode(node), grpc.close({ graceMs: 500 }), server.close({ graceMs: 0 })]);
});

let seq = 0;
function send(
  messageId: string,
  extra: Record<string, unknown> = {},
  configuration?: unknown,
): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: {
      messageId: `${messageId}-${++seq}-${Date.now()}`,
      role: 'ROLE_USER',
      parts: [{ text: 'hi' }],
      ...extra,
    },
    ...(configuration ? { configuration } : {}),
  });
}

function isTask(r: Task | Message): r is Task {
  return 'status' in r;
}

async function collect(gen: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const ev of gen) out.push(ev);
  return out;
}

describe('@a2a-js/sdk gRPC client against our gRPC server', () => {
  it('sends blocking (task and direct message) and non-blocking', async () => {
    const done = await client.sendMessage(send('tck-artifact-text'));
    if (!isTask(done)) throw new Error('expected a task');
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.artifacts).toHaveLength(1);
    const reply = await client.sendMessage(send('tck-message-response'));
    expect(isTask(reply)).toBe(false);
    const quick = await client.sendMessage(send('tck-delayed-complete', {}, { returnImmediately: true }));
    if (!isTask(quick)) throw new Error('expected a task');
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(quick.status?.state);
  });

  it('streams a chunked artifact to its end', async () => {
    const events = await collect(client.sendMessageStream(send('tck-stream-artifact-chunked')));
    expect(events[0]?.payload?.$case).toBe('task');
    expect(events.some((e) => e.payload?.$case === 'artifactUpdate')).toBe(true);
    const last = events.at(-1)?.payload;
    expect(last?.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('gets, lists and cancels; errors are the SDK classes', async () => {
    const r = await client.sendMessage(send('tck-input-required'));
    if (!isTask(r)) throw new Error('expected a task');
    expect((await client.getTask({ tenant: '', id: r.id })).id).toBe(r.id);
    const list = await client.listTasks(ListTasksRequest.fromJSON({ contextId: r.contextId }));
    expect(list.tasks.map((t) => t.id)).toEqual([r.id]);
    const canceled = await client.cancelTask({ tenant: '', id: r.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const done = await client.sendMessage(send('tck-complete-task'));
    if (!isTask(done)) throw new Error('expected a task');
    await expect(client.cancelTask({ tenant: '', id: done.id, metadata: undefined })).rejects.toBeInstanceOf(
      TaskNotCancelableError,
    );
    await expect(client.getTask({ tenant: '', id: 'nope' })).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it('subscribes: the task first, then its live events', async () => {
    const open = await client.sendMessage(send('tck-input-required'));
    if (!isTask(open)) throw new Error('expected a task');
    const gen = client.resubscribeTask({ tenant: '', id: open.id });
    const first = await gen.next();
    expect(first.value?.payload?.$case).toBe('task');
    await client.cancelTask({ tenant: '', id: open.id, metadata: undefined });
    const rest = await collect(gen);
    expect(rest.map((e) => e.payload?.$case)).toEqual(['statusUpdate']);
    const done = await client.sendMessage(send('tck-complete-task'));
    if (!isTask(done)) throw new Error('expected a task');
    await expect(collect(client.resubscribeTask({ tenant: '', id: done.id }))).rejects.toBeInstanceOf(
      UnsupportedOperationError,
    );
  });

  it('push-config CRUD', async () => {
    const r = await client.sendMessage(send('tck-input-required'));
    if (!isTask(r)) throw new Error('expected a task');
    const created = await client.createTaskPushNotificationConfig(
      TaskPushNotificationConfig.fromJSON({ taskId: r.id, id: 'hook-1', url: 'https://example.com/webhook' }),
    );
    expect(created).toMatchObject({ id: 'hook-1', taskId: r.id });
    const got = await client.getTaskPushNotificationConfig(
      GetTaskPushNotificationConfigRequest.fromJSON({ taskId: r.id, id: 'hook-1' }),
    );
    expect(got.url).toBe('https://example.com/webhook');
    const listed = await client.listTaskPushNotificationConfig(
      ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: r.id }),
    );
    expect(listed.configs.map((c) => c.id)).toEqual(['hook-1']);
    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: r.id, id: 'hook-1' });
    await expect(
      client.getTaskPushNotificationConfig(
        GetTaskPushNotificationConfigRequest.fromJSON({ taskId: r.id, id: 'hook-1' }),
      ),
    ).rejects.toBeInstanceOf(TaskNotFoundError);
    await client.cancelTask({ tenant: '', id: r.id, metadata: undefined });
  });

  it('fetches the extended card over gRPC', async () => {
    const card = await client.getAgentCard();
    expect(card.skills.map((s) => s.id)).toContain('tck-extended');
  });
});
