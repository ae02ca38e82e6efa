/**
 * Interop: the official `@a2a-js/sdk@1.3.0` client drives our server over real sockets,
 * once over JSON-RPC and once over HTTP+JSON, through send, stream, get, list, cancel, subscribe and push-config
 * CRUD. Every call must succeed with the right shapes, or fail with the SDK's own error class; every response
 * body the client received must also parse with our own zod schemas.
 */
import {
  GetTaskPushNotificationConfigRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTasksRequest,
  Role,
  SendMessageRequest,
  TaskPushNotificationConfig,
  TaskState,
  type Message,
  type StreamResponse,
  type Task,
} from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../src/cli/agents/index.js';
import { createA2AServer, type A2AServer } from '../../src/server/index.js';
import { serveNode, type NodeServerHandle } from '../../src/server/node/index.js';
import { checkExchanges, recordingFetch, settled, type Exchange } from './recording-fetch.js';
import { closeNode } from '../helpers/close-node.js';

// Push notifications declared, so the config operations below are served (they refuse on a card without them).
const agent = createAgent('tck', { pushNotifications: true });
let server: A2AServer;
let node: NodeServerHandle;

beforeAll(async () => {
  server = createA2AServer({ agent: agent.executor, card: agent.card, extendedCard: agent.extendedCard! });
  node = await serveNode(server.fetch, { port: 0 });
});

afterAll(async () => {
  await closeNode(node);
  await server.close();
});

let seq = 0;
function send(messageId: string, text = 'hello', extra: Record<string, unknown> = {}): SendMessageRequest {
  return SendMessageRequest.fromJSON({
    message: {
      messageId: `${messageId}-${++seq}-${Date.now()}`,
      role: 'ROLE_USER',
      parts: [{ text }],
      ...extra,
    },
  });
}

function isTask(r: Task | Message): r is Task {
  return 'status' in r;
}

function textOf(parts: readonly { content?: { $case: string; value: unknown } }[] | undefined): string[] {
  return (parts ?? []).flatMap((p) => (p.content?.$case === 'text' ? [String(p.content.value)] : []));
}

function caseOf(ev: StreamResponse): string {
  const p = ev.payload;
  if (!p) return 'empty';
  if (p.$case === 'statusUpdate') return `status:${TaskState[p.value.status?.state ?? 0]}`;
  return p.$case;
}

async function collect(gen: AsyncGenerator<StreamResponse>, limit = 50): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const ev of gen) {
    out.push(ev);
    if (out.length >= limit) break;
  }
  return out;
}

const TRANSPORTS = [
  { name: 'JSONRPC', binding: 'JSONRPC' },
  { name: 'REST', binding: 'HTTP+JSON' },
] as const;

describe.each(TRANSPORTS)('@a2a-js/sdk client over $name', ({ binding }) => {
  let client: Client;
  const log: Exchange[] = [];

  beforeAll(async () => {
    const fetchImpl = recordingFetch(log);
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
        preferredTransports: [binding],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      }),
    );
    client = await factory.createFromUrl(node.url);
  });

  it(`selects the ${binding} interface from our card and negotiates 1.0`, () => {
    expect(client.transport.protocolName).toBe(binding);
    expect(client.protocolVersion).toBe('1.0');
  });

  it('sendMessage (blocking) returns a completed Task with its artifact', async () => {
    const r = await client.sendMessage(send('tck-artifact-text'));
    if (!isTask(r)) throw new Error('expected a task');
    expect(r.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(r.artifacts).toHaveLength(1);
    expect(textOf(r.artifacts[0]?.parts)).toEqual(['Generated text content']);
    expect(r.contextId).toBeTruthy();
    expect(r.history[0]?.role).toBe(Role.ROLE_USER);
  });

  it('sendMessage to a direct-reply agent returns a Message', async () => {
    const r = await client.sendMessage(send('tck-message-response'));
    if (isTask(r)) throw new Error('expected a message');
    expect(r.role).toBe(Role.ROLE_AGENT);
    expect(textOf(r.parts)).toEqual(['Direct message response']);
    expect(r.contextId).toBeTruthy();
  });

  it('sendMessage with a file artifact decodes raw bytes', async () => {
    const r = await client.sendMessage(send('tck-artifact-file'));
    if (!isTask(r)) throw new Error('expected a task');
    const part = r.artifacts[0]?.parts[0];
    expect(part?.content?.$case).toBe('raw');
    expect(Buffer.from(part?.content?.value as Buffer).toString('utf8')).toBe('File content from TCK');
    expect(part?.mediaType).toBe('text/plain');
    expect(part?.filename).toBe('output.txt');
  });

  it('sendMessageStream yields task, status, chunked artifacts and the final status in order', async () => {
    const events = await collect(client.sendMessageStream(send('tck-stream-artifact-chunked')));
    expect(events.map(caseOf)).toEqual([
      'task',
      'status:TASK_STATE_WORKING',
      'artifactUpdate',
      'artifactUpdate',
      'status:TASK_STATE_COMPLETED',
    ]);
    const chunks = events.flatMap((e) => (e.payload?.$case === 'artifactUpdate' ? [e.payload.value] : []));
    expect(chunks.map((c) => [c.append, c.lastChunk])).toEqual([
      [true, false],
      [true, true],
    ]);
  });

  it('sendMessageStream of a direct reply yields exactly one message', async () => {
    const events = await collect(client.sendMessageStream(send('tck-message-response')));
    expect(events.map(caseOf)).toEqual(['message']);
  });

  it('getTask returns the task, honours historyLength, and throws TaskNotFoundError for an unknown id', async () => {
    const r = await client.sendMessage(send('tck-complete-task'));
    if (!isTask(r)) throw new Error('expected a task');
    const got = await client.getTask({ tenant: '', id: r.id });
    expect(got.id).toBe(r.id);
    expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(got.history.length).toBe(2);
    const one = await client.getTask({ tenant: '', id: r.id, historyLength: 1 });
    expect(one.history).toHaveLength(1);
    await expect(client.getTask({ tenant: '', id: 'no-such-task' })).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
  });

  it('a message to a completed task throws UnsupportedOperationError', async () => {
    const r = await client.sendMessage(send('tck-complete-task'));
    if (!isTask(r)) throw new Error('expected a task');
    await expect(
      client.sendMessage(send('tck-complete-task', 'again', { taskId: r.id })),
    ).rejects.toBeInstanceOf(UnsupportedOperationError);
  });

  it('a follow-up to an INPUT_REQUIRED task continues it', async () => {
    const first = await client.sendMessage(send('tck-input-required'));
    if (!isTask(first)) throw new Error('expected a task');
    expect(first.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const second = await client.sendMessage(send('tck-complete-task', 'here you go', { taskId: first.id }));
    if (!isTask(second)) throw new Error('expected a task');
    expect(second.id).toBe(first.id);
    expect(second.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('listTasks filters by context, pages with a cursor, and honours includeArtifacts', async () => {
    const contextId = `ctx-${binding}-${Date.now()}`;
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await client.sendMessage(send('tck-artifact-text', `t${i}`, { contextId }));
      if (!isTask(r)) throw new Error('expected a task');
      made.push(r.id);
    }
    const p1 = await client.listTasks(ListTasksRequest.fromJSON({ contextId, pageSize: 2 }));
    expect(p1.tasks).toHaveLength(2);
    expect(p1.totalSize).toBe(3);
    expect(p1.pageSize).toBe(2);
    expect(p1.nextPageToken).not.toBe('');
    const p2 = await client.listTasks(
      ListTasksRequest.fromJSON({ contextId, pageSize: 2, pageToken: p1.nextPageToken }),
    );
    expect(p2.tasks).toHaveLength(1);
    expect(p2.nextPageToken).toBe('');
    expect([...p1.tasks, ...p2.tasks].map((t) => t.id).sort()).toEqual([...made].sort());
    for (const t of p1.tasks) expect(t.artifacts).toEqual([]);
    const withArtifacts = await client.listTasks(
      ListTasksRequest.fromJSON({ contextId, includeArtifacts: true }),
    );
    for (const t of withArtifacts.tasks)
      expect(textOf(t.artifacts[0]?.parts)).toEqual(['Generated text content']);
    const byState = await client.listTasks(
      ListTasksRequest.fromJSON({ contextId, status: 'TASK_STATE_COMPLETED' }),
    );
    expect(byState.tasks).toHaveLength(3);
  });

  it('cancelTask cancels an interrupted task and throws TaskNotCancelableError for a completed one', async () => {
    const open = await client.sendMessage(send('tck-input-required'));
    if (!isTask(open)) throw new Error('expected a task');
    const canceled = await client.cancelTask({ tenant: '', id: open.id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const done = await client.sendMessage(send('tck-complete-task'));
    if (!isTask(done)) throw new Error('expected a task');
    await expect(client.cancelTask({ tenant: '', id: done.id, metadata: undefined })).rejects.toBeInstanceOf(
      TaskNotCancelableError,
    );
    await expect(client.cancelTask({ tenant: '', id: 'nope', metadata: undefined })).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
  });

  it('resubscribeTask yields the current task first, then live events until the task ends', async () => {
    const open = await client.sendMessage(send('tck-input-required'));
    if (!isTask(open)) throw new Error('expected a task');
    const gen = client.resubscribeTask({ tenant: '', id: open.id });
    const first = await gen.next();
    if (first.done) throw new Error('stream ended early');
    expect(first.value.payload?.$case).toBe('task');
    if (first.value.payload?.$case === 'task') expect(first.value.payload.value.id).toBe(open.id);
    await client.cancelTask({ tenant: '', id: open.id, metadata: undefined });
    const rest = await collect(gen);
    expect(rest.map(caseOf)).toEqual(['status:TASK_STATE_CANCELED']);
  });

  it('resubscribeTask to a terminal task throws UnsupportedOperationError', async () => {
    const done = await client.sendMessage(send('tck-complete-task'));
    if (!isTask(done)) throw new Error('expected a task');
    await expect(collect(client.resubscribeTask({ tenant: '', id: done.id }))).rejects.toBeInstanceOf(
      UnsupportedOperationError,
    );
  });

  it('push-config CRUD: create, get, list, delete', async () => {
    const r = await client.sendMessage(send('tck-input-required'));
    if (!isTask(r)) throw new Error('expected a task');
    const created = await client.createTaskPushNotificationConfig(
      TaskPushNotificationConfig.fromJSON({
        taskId: r.id,
        id: 'hook-1',
        url: 'https://example.com/webhook',
        token: 'tok-1',
        authentication: { scheme: 'Bearer', credentials: 'secret' },
      }),
    );
    expect(created).toMatchObject({
      id: 'hook-1',
      taskId: r.id,
      url: 'https://example.com/webhook',
      token: 'tok-1',
    });
    expect(created.authentication?.scheme).toBe('Bearer');
    const got = await client.getTaskPushNotificationConfig(
      GetTaskPushNotificationConfigRequest.fromJSON({ taskId: r.id, id: 'hook-1' }),
    );
    expect(got.url).toBe('https://example.com/webhook');
    const listed = await client.listTaskPushNotificationConfig(
      ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: r.id }),
    );
    expect(listed.configs.map((c) => c.id)).toEqual(['hook-1']);
    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: r.id, id: 'hook-1' });
    const after = await client.listTaskPushNotificationConfig(
      ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: r.id }),
    );
    expect(after.configs).toEqual([]);
    await expect(
      client.getTaskPushNotificationConfig(
        GetTaskPushNotificationConfigRequest.fromJSON({ taskId: r.id, id: 'hook-1' }),
      ),
    ).rejects.toBeInstanceOf(TaskNotFoundError);
    await client.cancelTask({ tenant: '', id: r.id, metadata: undefined });
  });

  it('getAgentCard fetches the extended card', async () => {
    const card = await client.getAgentCard();
    expect(card.skills.map((s) => s.id)).toContain('tck-extended');
  });

  it('every response body the client received parses with our own schemas', async () => {
    await settled();
    expect(log.length).toBeGreaterThan(15);
    expect(checkExchanges(log)).toEqual([]);
  });
});
