/**
 * Multi-tenancy (A2A v1.0): a tenant on every operation, from the REST `/{tenant}` prefix or
 * JSON-RPC `params.tenant`, and tasks isolated per tenant on every operation.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ListTasksResponseSchema, TaskSchema } from '../../../src/protocol/schemas/index.js';
import { expectRestError, expectRpcError, readSse, uid, userMsg } from '../../helpers/http.js';
import { pushTckServer, rest, restOk, rpc, rpcOk, sendTask } from './fixtures.js';

const tck = pushTckServer();
afterAll(() => tck.close());

describe('tenant isolation', () => {
  it('a task created under /acme is visible under /acme and through params.tenant "acme" only', async () => {
    const res = await rest(tck, 'POST', '/acme/message:send', { message: userMsg(uid('tck-complete-task')) });
    expect(res.status).toBe(200);
    const id = ((await res.json()) as { task: { id: string } }).task.id;

    await restOk(tck, 'GET', `/acme/tasks/${id}`, undefined, TaskSchema);
    const viaRpc = await rpcOk(tck, 'GetTask', { id, tenant: 'acme' }, TaskSchema);
    expect(viaRpc.id).toBe(id);

    await expectRestError(await rest(tck, 'GET', `/tasks/${id}`), 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
    await expectRestError(await rest(tck, 'GET', `/globex/tasks/${id}`), 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
    expectRpcError(await rpc(tck, 'GetTask', { id }), -32001, 'TASK_NOT_FOUND');
    expectRpcError(await rpc(tck, 'GetTask', { id, tenant: 'globex' }), -32001, 'TASK_NOT_FOUND');
  });

  it('ListTasks shows only the tenant’s own tasks', async () => {
    const a = await sendTask(tck, { tenant: 't-list-a', message: userMsg(uid('tck-complete-task')) });
    const b = await sendTask(tck, { tenant: 't-list-b', message: userMsg(uid('tck-complete-task')) });
    const la = await restOk(tck, 'GET', '/t-list-a/tasks', undefined, ListTasksResponseSchema);
    expect(la.value.tasks.map((t) => t.id)).toEqual([a.id]);
    expect(la.value.totalSize).toBe(1);
    const lb = await rpcOk(tck, 'ListTasks', { tenant: 't-list-b' }, ListTasksResponseSchema);
    expect(lb.tasks.map((t) => t.id)).toEqual([b.id]);
    const root = await rpcOk(tck, 'ListTasks', {}, ListTasksResponseSchema);
    expect(root.tasks.map((t) => t.id)).not.toContain(a.id);
    expect(root.tasks.map((t) => t.id)).not.toContain(b.id);
  });

  it('cancel, subscribe, continuation and push configs are tenant-scoped', async () => {
    const t = await sendTask(tck, { tenant: 'acme', message: userMsg(uid('tck-input-required')) });
    expect(t.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    await expectRestError(
      await rest(tck, 'POST', `/globex/tasks/${t.id}:cancel`),
      404,
      'NOT_FOUND',
      'TASK_NOT_FOUND',
    );
    await expectRestError(
      await rest(tck, 'POST', `/globex/tasks/${t.id}:subscribe`),
      404,
      'NOT_FOUND',
      'TASK_NOT_FOUND',
    );
    expectRpcError(
      await rpc(tck, 'SendMessage', { tenant: 'globex', message: userMsg(uid(), 'x', { taskId: t.id }) }),
      -32001,
      'TASK_NOT_FOUND',
    );
    await expectRestError(
      await rest(tck, 'POST', `/globex/tasks/${t.id}/pushNotificationConfigs`, {
        url: 'https://example.com/h',
      }),
      404,
      'NOT_FOUND',
      'TASK_NOT_FOUND',
    );
    const created = await rest(tck, 'POST', `/acme/tasks/${t.id}/pushNotificationConfigs`, {
      id: 'p1',
      url: 'https://example.com/h',
    });
    expect(created.status).toBe(201);
    await created.body?.cancel();
    expectRpcError(
      await rpc(tck, 'GetTaskPushNotificationConfig', { tenant: 'globex', taskId: t.id, id: 'p1' }),
      -32001,
      'TASK_NOT_FOUND',
    );
    const got = await rpc(tck, 'GetTaskPushNotificationConfig', { tenant: 'acme', taskId: t.id, id: 'p1' });
    expect(got.error).toBeUndefined();
    // The owner tenant can still do everything.
    const sub = await rest(tck, 'POST', `/acme/tasks/${t.id}:subscribe`);
    expect(sub.status).toBe(200);
    const cancel = await rpcOk(tck, 'CancelTask', { tenant: 'acme', id: t.id }, TaskSchema);
    expect(cancel.status.state).toBe('TASK_STATE_CANCELED');
    const frames = await readSse(sub);
    expect(frames.at(-1)?.data).toMatchObject({ statusUpdate: { status: { state: 'TASK_STATE_CANCELED' } } });
  });

  it('the path tenant wins over a different tenant in the body', async () => {
    const res = await rest(tck, 'POST', '/path-tenant/message:send', {
      tenant: 'body-tenant',
      message: userMsg(uid('tck-complete-task')),
    });
    const id = ((await res.json()) as { task: { id: string } }).task.id;
    await restOk(tck, 'GET', `/path-tenant/tasks/${id}`, undefined, TaskSchema);
    await expectRestError(
      await rest(tck, 'GET', `/body-tenant/tasks/${id}`),
      404,
      'NOT_FOUND',
      'TASK_NOT_FOUND',
    );
  });

  it('a percent-encoded tenant path segment is decoded', async () => {
    const t = await sendTask(tck, { tenant: 'org/a b', message: userMsg(uid('tck-complete-task')) });
    await restOk(tck, 'GET', `/${encodeURIComponent('org/a b')}/tasks/${t.id}`, undefined, TaskSchema);
  });

  it('the extended card is served under a tenant prefix too', async () => {
    const res = await rest(tck, 'GET', '/acme/extendedAgentCard');
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });
});
