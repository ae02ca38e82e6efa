/**
 * Every RPC of `lf.a2a.v1.A2AService` over a real grpc-js channel on loopback (A2A §10), against one server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGrpcFixture, userMessage, type GrpcFixture } from './grpc-fixture.js';
import type { GrpcFailure } from './grpc-test-client.js';

let f: GrpcFixture;
beforeAll(async () => {
  f = await startGrpcFixture();
});
afterAll(() => f.close());

type Task = { id: string; contextId: string; status: { state: string }; history?: unknown[] };

describe('gRPC: every RPC', () => {
  it('SendMessage answers the completed task (blocking) and a direct message', async () => {
    const { value } = await f.client.unary('SendMessage', { message: userMessage('hello') });
    const task = (value as { task: Task }).task;
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const reply = await f.client.unary('SendMessage', { message: userMessage('reply') });
    expect(reply.value).toMatchObject({
      message: { role: 'ROLE_AGENT', parts: [{ text: 'a direct reply' }] },
    });
  });

  it('SendMessage with returnImmediately answers before the task ends', async () => {
    const { value } = await f.client.unary('SendMessage', {
      message: userMessage('hold'),
      configuration: { returnImmediately: true },
    });
    const task = (value as { task: Task }).task;
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(task.status.state);
    f.release();
  });

  it('SendStreamingMessage streams the task then its updates, and ends', async () => {
    const events = (await f.client.stream('SendStreamingMessage', {
      message: userMessage('stream me'),
    })) as Record<string, unknown>[];
    expect(Object.keys(events[0] ?? {})).toEqual(['task']);
    const last = events.at(-1) as { statusUpdate?: { status: { state: string } } };
    expect(last.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('GetTask, ListTasks and CancelTask', async () => {
    const sent = await f.client.unary('SendMessage', { message: userMessage('ask') });
    const task = (sent.value as { task: Task }).task;
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const got = (await f.client.unary('GetTask', { id: task.id, historyLength: 1 })).value as Task;
    expect(got.id).toBe(task.id);
    expect(got.history?.length).toBe(1);
    const list = (await f.client.unary('ListTasks', { contextId: task.contextId })).value as {
      tasks: Task[];
      nextPageToken: string;
    };
    expect(list.tasks.map((t) => t.id)).toEqual([task.id]);
    expect(list.nextPageToken).toBe('');
    const canceled = (await f.client.unary('CancelTask', { id: task.id })).value as Task;
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
  });

  it('SubscribeToTask starts with the task snapshot and follows it to its end', async () => {
    const sent = await f.client.unary('SendMessage', {
      message: userMessage('hold'),
      configuration: { returnImmediately: true },
    });
    const id = (sent.value as { task: Task }).task.id;
    const call = f.client.open('SubscribeToTask', { id });
    const events: Record<string, unknown>[] = [];
    const ended = new Promise<void>((resolve, reject) => {
      call.on('data', (e: Record<string, unknown>) => {
        events.push(e);
        if (events.length === 1) f.release();
      });
      call.on('end', resolve);
      call.on('error', reject);
    });
    await ended;
    expect((events[0] as { task: Task }).task.id).toBe(id);
    expect((events.at(-1) as { statusUpdate: { status: { state: string } } }).statusUpdate.status.state).toBe(
      'TASK_STATE_COMPLETED',
    );
  });

  it('push config create, get, list and delete', async () => {
    const sent = await f.client.unary('SendMessage', { message: userMessage('ask') });
    const taskId = (sent.value as { task: Task }).task.id;
    const created = (
      await f.client.unary('CreateTaskPushNotificationConfig', {
        taskId,
        id: 'c1',
        url: 'http://127.0.0.1:9/hook',
        token: 'tok',
      })
    ).value as { id: string; taskId: string; url: string };
    expect(created).toMatchObject({ id: 'c1', taskId, url: 'http://127.0.0.1:9/hook' });
    expect((await f.client.unary('GetTaskPushNotificationConfig', { taskId, id: 'c1' })).value).toMatchObject(
      {
        id: 'c1',
      },
    );
    const listed = (await f.client.unary('ListTaskPushNotificationConfigs', { taskId })).value as {
      configs: unknown[];
    };
    expect(listed.configs).toHaveLength(1);
    expect((await f.client.unary('DeleteTaskPushNotificationConfig', { taskId, id: 'c1' })).value).toEqual(
      {},
    );
    const gone = await f.client
      .unary('GetTaskPushNotificationConfig', { taskId, id: 'c1' })
      .catch((e: GrpcFailure) => e);
    expect((gone as GrpcFailure).code).toBe(5);
  });

  it('GetExtendedAgentCard answers the extended card, with the default interfaces', async () => {
    const card = (await f.client.unary('GetExtendedAgentCard', {})).value as {
      name: string;
      skills: { id: string }[];
      supportedInterfaces: { protocolBinding: string }[];
    };
    expect(card.name).toBe('grpc test agent (extended)');
    expect(card.skills.map((s) => s.id)).toEqual(['secret']);
    expect(card.supportedInterfaces.map((i) => i.protocolBinding)).toEqual(['JSONRPC', 'HTTP+JSON']);
  });
});
