/**
 * The JSON-RPC 2.0 binding (A2A v1.0): one POST endpoint, PascalCase methods, the envelope, the
 * wrapped SendMessage result, and error objects carrying a google.rpc.ErrorInfo in `data[0]`.
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  ListTaskPushNotificationConfigsResponseSchema,
  ListTasksResponseSchema,
  SendMessageResponseSchema,
  TaskPushNotificationConfigSchema,
  TaskSchema,
} from '../../../src/protocol/schemas/index.js';
import { BASE, expectRpcError, parseAs, rpcJson, rpcRequest, uid, userMsg } from '../../helpers/http.js';
import { builtinServer, pushTckServer, rpc, rpcOk, sendTask } from './fixtures.js';

const tck = pushTckServer();
const echo = builtinServer('echo');
/** A host that turned push delivery off: its card says so, and push-config operations are refused. */
const noPush = builtinServer('echo', { push: false });

afterAll(async () => {
  await tck.close();
  await echo.close();
  await noPush.close();
});

function post(body: string, headers: Record<string, string> = {}): Request {
  return new Request(`${BASE}/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0', ...headers },
    body,
  });
}

describe('JSON-RPC envelope', () => {
  it('answers SendMessage with HTTP 200, application/json and the same id, result wrapped as {task}', async () => {
    const res = await tck.fetch(
      rpcRequest('SendMessage', { message: userMsg(uid('tck-complete-task')) }, { id: 'req-7' }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const env = await rpcJson(res);
    expect(env.jsonrpc).toBe('2.0');
    expect(env.id).toBe('req-7');
    expect(env.error).toBeUndefined();
    const result = parseAs(SendMessageResponseSchema, env.result, 'SendMessage result');
    expect(Object.keys(env.result as object)).toEqual(['task']);
    if (!('task' in result)) throw new Error('expected a task');
    expect(result.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(typeof result.task.contextId).toBe('string');
  });

  it('echoes numeric ids', async () => {
    const env = await rpcJson(await tck.fetch(rpcRequest('ListTasks', {}, { id: 42 })));
    expect(env.id).toBe(42);
    expect(env.result).toBeDefined();
  });

  it('wraps a direct reply as {message} with ROLE_AGENT and a contextId', async () => {
    const r = await rpcOk(
      tck,
      'SendMessage',
      { message: userMsg(uid('tck-message-response')) },
      SendMessageResponseSchema,
    );
    if (!('message' in r)) throw new Error(`expected a message, got ${JSON.stringify(r)}`);
    expect(r.message.role).toBe('ROLE_AGENT');
    expect(r.message.contextId).toBeTruthy();
    expect(r.message.taskId).toBeUndefined();
  });

  it('serves every one of the 11 methods by its PascalCase name', async () => {
    const task = await sendTask(tck, { message: userMsg(uid('tck-input-required')) });
    const id = task.id;
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    parseAs(TaskSchema, (await rpcOk(tck, 'GetTask', { id }, TaskSchema)) as unknown, 'GetTask');
    await rpcOk(tck, 'ListTasks', {}, ListTasksResponseSchema);
    const created = await rpcOk(
      tck,
      'CreateTaskPushNotificationConfig',
      { taskId: id, id: 'cfg-1', url: 'https://example.com/hook', token: 'tok' },
      TaskPushNotificationConfigSchema,
    );
    expect(created).toMatchObject({ taskId: id, id: 'cfg-1', url: 'https://example.com/hook', token: 'tok' });
    const got = await rpcOk(
      tck,
      'GetTaskPushNotificationConfig',
      { taskId: id, id: 'cfg-1' },
      TaskPushNotificationConfigSchema,
    );
    expect(got.url).toBe('https://example.com/hook');
    const list = await rpcOk(
      tck,
      'ListTaskPushNotificationConfigs',
      { taskId: id },
      ListTaskPushNotificationConfigsResponseSchema,
    );
    expect(list.configs.map((c) => c.id)).toEqual(['cfg-1']);
    const del = await rpc(tck, 'DeleteTaskPushNotificationConfig', { taskId: id, id: 'cfg-1' });
    expect(del.error).toBeUndefined();
    // ProtoJSON Empty is {}; the JS server sends null. Either is acceptable (A2A v1.0).
    expect(del.result === null || JSON.stringify(del.result) === '{}').toBe(true);
    const ext = await rpc(tck, 'GetExtendedAgentCard');
    expect(ext.error).toBeUndefined();
    expect((ext.result as { skills: { id: string }[] }).skills.map((s) => s.id)).toContain('tck-extended');
    const canceled = await rpcOk(tck, 'CancelTask', { id }, TaskSchema);
    expect(canceled.status.state).toBe('TASK_STATE_CANCELED');
    // The two streaming methods answer with SSE (framing is covered in sse-streams.test.ts).
    const s1 = await tck.fetch(
      rpcRequest('SendStreamingMessage', { message: userMsg(uid('tck-stream-002')) }),
    );
    expect(s1.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await s1.body?.cancel();
    const open = await sendTask(tck, { message: userMsg(uid('tck-input-required')) });
    const s2 = await tck.fetch(rpcRequest('SubscribeToTask', { id: open.id }));
    expect(s2.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await s2.body?.cancel();
  });
});

describe('JSON-RPC protocol errors', () => {
  it('malformed JSON is -32700 with id null, never a crash', async () => {
    const res = await tck.fetch(post('{"jsonrpc":"2.0","id":1,"method":'));
    expect(res.status).toBe(200);
    const env = await rpcJson(res);
    expect(env.id).toBeNull();
    expect(env.error?.code).toBe(-32700);
    expect(env.result).toBeUndefined();
  });

  it('an empty body is -32700', async () => {
    const env = await rpcJson(await tck.fetch(post('')));
    expect(env.error?.code).toBe(-32700);
  });

  it('a non-object request is -32600', async () => {
    const env = await rpcJson(await tck.fetch(post('"hello"')));
    expect(env.error?.code).toBe(-32600);
    expect(env.id).toBeNull();
  });

  it('a batch is refused with -32600 (batches are not supported)', async () => {
    const env = await rpcJson(
      await tck.fetch(post('[{"jsonrpc":"2.0","id":1,"method":"ListTasks","params":{}}]')),
    );
    expect(env.error?.code).toBe(-32600);
  });

  it('a wrong jsonrpc version is -32600 and keeps the id', async () => {
    const env = await rpcJson(
      await tck.fetch(post('{"jsonrpc":"1.0","id":"x","method":"ListTasks","params":{}}')),
    );
    expect(env.error?.code).toBe(-32600);
    expect(env.id).toBe('x');
  });

  it('an unknown method is -32601', async () => {
    const env = await rpc(tck, 'tasks/frobnicate', { id: 'x' });
    expect(env.error?.code).toBe(-32601);
  });

  it('the v0.3 slash names are refused as a version not served without compat (ADR 0097)', async () => {
    for (const method of ['message/send', 'tasks/get']) {
      const env = await rpc(tck, method, { message: userMsg(uid()), id: 'x' });
      expectRpcError(env, -32009, 'VERSION_NOT_SUPPORTED');
    }
  });

  it('params that are not an object are -32602 INVALID_PARAMS', async () => {
    const env = await rpc(tck, 'GetTask', ['x']);
    expectRpcError(env, -32602, 'INVALID_PARAMS');
  });

  it('a message without messageId is -32602 INVALID_PARAMS', async () => {
    const env = await rpc(tck, 'SendMessage', { message: { role: 'ROLE_USER', parts: [{ text: 'x' }] } });
    expectRpcError(env, -32602, 'INVALID_PARAMS');
  });

  it('a message with no parts is -32602', async () => {
    const env = await rpc(tck, 'SendMessage', {
      message: { messageId: uid(), role: 'ROLE_USER', parts: [] },
    });
    expectRpcError(env, -32602, 'INVALID_PARAMS');
  });

  it('a non-JSON Content-Type is -32005 CONTENT_TYPE_NOT_SUPPORTED with HTTP 200 (A2A v1.0.1)', async () => {
    const res = await tck.fetch(
      post('{"jsonrpc":"2.0","id":1,"method":"ListTasks"}', { 'Content-Type': 'text/plain' }),
    );
    expect(res.status).toBe(200);
    expectRpcError(await rpcJson(res), -32005, 'CONTENT_TYPE_NOT_SUPPORTED');
  });
});

describe('JSON-RPC A2A errors carry ErrorInfo in data[0]', () => {
  it('GetTask of an unknown id is -32001 TASK_NOT_FOUND', async () => {
    expectRpcError(await rpc(tck, 'GetTask', { id: 'no-such-task' }), -32001, 'TASK_NOT_FOUND');
  });

  it('CancelTask of a completed task is -32002 TASK_NOT_CANCELABLE', async () => {
    const t = await sendTask(tck, { message: userMsg(uid('tck-complete-task')) });
    expectRpcError(await rpc(tck, 'CancelTask', { id: t.id }), -32002, 'TASK_NOT_CANCELABLE');
  });

  it('push-config operations on a host that turned push off are -32003', async () => {
    const t = await sendTask(noPush, { message: userMsg(uid()) });
    const env = await rpc(noPush, 'CreateTaskPushNotificationConfig', {
      taskId: t.id,
      url: 'https://example.com/h',
    });
    expectRpcError(env, -32003, 'PUSH_NOTIFICATION_NOT_SUPPORTED');
    expectRpcError(
      await rpc(noPush, 'ListTaskPushNotificationConfigs', { taskId: t.id }),
      -32003,
      'PUSH_NOTIFICATION_NOT_SUPPORTED',
    );
  });

  it('a message to a completed task is -32004 UNSUPPORTED_OPERATION', async () => {
    const t = await sendTask(tck, { message: userMsg(uid('tck-complete-task')) });
    const env = await rpc(tck, 'SendMessage', {
      message: userMsg(uid('tck-complete-task'), 'more', { taskId: t.id }),
    });
    expectRpcError(env, -32004, 'UNSUPPORTED_OPERATION');
  });

  it('GetExtendedAgentCard without capabilities.extendedAgentCard is -32004', async () => {
    expectRpcError(await rpc(echo, 'GetExtendedAgentCard'), -32004, 'UNSUPPORTED_OPERATION');
  });

  it('GetPushConfig of a missing config is -32001 TASK_NOT_FOUND', async () => {
    const t = await sendTask(tck, { message: userMsg(uid('tck-complete-task')) });
    expectRpcError(
      await rpc(tck, 'GetTaskPushNotificationConfig', { taskId: t.id, id: 'missing' }),
      -32001,
      'TASK_NOT_FOUND',
    );
  });

  it('DeleteTaskPushNotificationConfig is idempotent', async () => {
    const t = await sendTask(tck, { message: userMsg(uid('tck-complete-task')) });
    for (let i = 0; i < 2; i++) {
      const env = await rpc(tck, 'DeleteTaskPushNotificationConfig', { taskId: t.id, id: 'never-created' });
      expect(env.error).toBeUndefined();
    }
  });
});
