/**
 * The HTTP+JSON binding (A2A v1.0): every route, bare and under `/{tenant}`, success codes
 * (201 create, 204 delete), camelCase query parameters, and google.rpc.Status error bodies with the HTTP status
 * and gRPC status name of the v1.0.1 mapping table.
 */
import { afterAll, describe, expect, it } from 'vitest';
import {
  ListTaskPushNotificationConfigsResponseSchema,
  ListTasksResponseSchema,
  SendMessageResponseSchema,
  TaskPushNotificationConfigSchema,
  TaskSchema,
} from '../../../src/protocol/schemas/index.js';
import type { Task } from '../../../src/protocol/model.js';
import { BASE, expectRestError, readSse, uid, userMsg } from '../../helpers/http.js';
import { builtinServer, inlineServer, pushTckServer, rest, restOk } from './fixtures.js';

const tck = pushTckServer();
const echo = builtinServer('echo');
/** A host that turned push delivery off: its card says so, and push-config operations are refused. */
const noPush = builtinServer('echo', { push: false });
const noExtended = inlineServer(async (ctx) => ctx.complete(), {
  capabilities: { streaming: true, extendedAgentCard: true },
});

afterAll(async () => {
  await Promise.all([tck.close(), echo.close(), noPush.close(), noExtended.close()]);
});

async function sendRest(prefix: string, messageId: string): Promise<Task> {
  const { value } = await restOk(
    tck,
    'POST',
    `${prefix}/message:send`,
    { message: userMsg(messageId) },
    SendMessageResponseSchema,
  );
  if (!('task' in value)) throw new Error('expected a task');
  return value.task;
}

for (const prefix of ['', '/acme']) {
  describe(`REST routes ${prefix === '' ? 'without' : 'with'} a tenant prefix`, () => {
    it('POST /message:send answers 200 with {task}, application/a2a+json when Accept names it', async () => {
      const res = await rest(
        tck,
        'POST',
        `${prefix}/message:send`,
        { message: userMsg(uid('tck-complete-task')) },
        { Accept: 'application/a2a+json, application/json' },
      );
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/a2a+json');
      const body = (await res.json()) as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(['task']);
    });

    it('GET /tasks/{id} returns the bare Task', async () => {
      const t = await sendRest(prefix, uid('tck-complete-task'));
      const { value } = await restOk(tck, 'GET', `${prefix}/tasks/${t.id}`, undefined, TaskSchema);
      expect(value.id).toBe(t.id);
      expect(value.status.state).toBe('TASK_STATE_COMPLETED');
    });

    it('GET /tasks returns a ListTasksResponse', async () => {
      const t = await sendRest(prefix, uid('tck-complete-task'));
      const { value, raw } = await restOk(tck, 'GET', `${prefix}/tasks`, undefined, ListTasksResponseSchema);
      expect(value.tasks.map((x) => x.id)).toContain(t.id);
      expect(raw).toHaveProperty('nextPageToken');
    });

    it('POST /tasks/{id}:cancel cancels an interrupted task', async () => {
      const t = await sendRest(prefix, uid('tck-input-required'));
      expect(t.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
      const { value } = await restOk(tck, 'POST', `${prefix}/tasks/${t.id}:cancel`, undefined, TaskSchema);
      expect(value.status.state).toBe('TASK_STATE_CANCELED');
    });

    for (const verb of ['GET', 'POST']) {
      it(`${verb} /tasks/{id}:subscribe streams the task snapshot first`, async () => {
        const t = await sendRest(prefix, uid('tck-input-required'));
        const ctl = new AbortController();
        const res = await tck.fetch(
          new Request(`${BASE}${prefix}/tasks/${t.id}:subscribe`, {
            method: verb,
            headers: { 'A2A-Version': '1.0' },
            signal: ctl.signal,
          }),
        );
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
        // Cancel the task so the stream ends, then read all of it.
        await rest(tck, 'POST', `${prefix}/tasks/${t.id}:cancel`);
        const frames = await readSse(res);
        expect(frames[0]?.data).toMatchObject({ task: { id: t.id } });
        expect(frames.at(-1)?.data).toMatchObject({
          statusUpdate: { status: { state: 'TASK_STATE_CANCELED' } },
        });
      });
    }

    it('push-config CRUD: 201 create, GET one, GET list, 204 delete', async () => {
      const t = await sendRest(prefix, uid('tck-input-required'));
      const base = `${prefix}/tasks/${t.id}/pushNotificationConfigs`;
      const created = await restOk(
        tck,
        'POST',
        base,
        { id: 'c1', url: 'https://example.com/hook', authentication: { scheme: 'Bearer', credentials: 's' } },
        TaskPushNotificationConfigSchema,
        201,
      );
      expect(created.value).toMatchObject({ id: 'c1', taskId: t.id, url: 'https://example.com/hook' });
      const auto = await restOk(
        tck,
        'POST',
        base,
        { url: 'https://example.com/h2' },
        TaskPushNotificationConfigSchema,
        201,
      );
      expect(auto.value.id).toBeTruthy();
      const one = await restOk(tck, 'GET', `${base}/c1`, undefined, TaskPushNotificationConfigSchema);
      expect(one.value).toMatchObject({ id: 'c1', taskId: t.id, authentication: { scheme: 'Bearer' } });
      const list = await restOk(tck, 'GET', base, undefined, ListTaskPushNotificationConfigsResponseSchema);
      expect(list.value.configs.map((c) => c.id).sort()).toEqual([auto.value.id, 'c1'].sort());
      const del = await rest(tck, 'DELETE', `${base}/c1`);
      expect(del.status).toBe(204);
      expect(await del.text()).toBe('');
      const again = await rest(tck, 'DELETE', `${base}/c1`);
      expect(again.status).toBe(204);
      await expectRestError(await rest(tck, 'GET', `${base}/c1`), 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
    });

    it('GET /extendedAgentCard returns the extended card', async () => {
      const res = await rest(tck, 'GET', `${prefix}/extendedAgentCard`);
      expect(res.status).toBe(200);
      const raw = (await res.json()) as { skills: { id: string }[] };
      expect(raw.skills.map((s) => s.id)).toContain('tck-extended');
    });

    it('POST /message:stream answers SSE', async () => {
      const res = await rest(tck, 'POST', `${prefix}/message:stream`, {
        message: userMsg(uid('tck-stream-002')),
      });
      expect(res.status).toBe(200);
      const frames = await readSse(res);
      expect(frames.length).toBeGreaterThanOrEqual(2);
    });
  });
}

describe('REST error bodies (google.rpc.Status, A2A v1.0 table)', () => {
  it('unknown task: 404 NOT_FOUND TASK_NOT_FOUND', async () => {
    await expectRestError(await rest(tck, 'GET', '/tasks/nope'), 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
    await expectRestError(await rest(tck, 'POST', '/tasks/nope:cancel'), 404, 'NOT_FOUND', 'TASK_NOT_FOUND');
    await expectRestError(
      await rest(tck, 'POST', '/tasks/nope:subscribe'),
      404,
      'NOT_FOUND',
      'TASK_NOT_FOUND',
    );
    await expectRestError(
      await rest(tck, 'GET', '/tasks/nope/pushNotificationConfigs'),
      404,
      'NOT_FOUND',
      'TASK_NOT_FOUND',
    );
  });

  it('error bodies are application/json, or application/a2a+json when Accept names it (ADR 0042)', async () => {
    const plain = await rest(tck, 'GET', '/tasks/nope');
    expect(plain.headers.get('content-type')).toBe('application/json');
    await plain.body?.cancel();
    const a2a = await rest(tck, 'GET', '/tasks/nope', undefined, { Accept: 'application/a2a+json' });
    expect(a2a.headers.get('content-type')).toBe('application/a2a+json');
    await a2a.body?.cancel();
  });

  it('cancel of a completed task: 400 FAILED_PRECONDITION TASK_NOT_CANCELABLE', async () => {
    const t = await sendRest('', uid('tck-complete-task'));
    await expectRestError(
      await rest(tck, 'POST', `/tasks/${t.id}:cancel`),
      400,
      'FAILED_PRECONDITION',
      'TASK_NOT_CANCELABLE',
    );
  });

  it('message to a completed task: 400 FAILED_PRECONDITION UNSUPPORTED_OPERATION', async () => {
    const t = await sendRest('', uid('tck-complete-task'));
    await expectRestError(
      await rest(tck, 'POST', '/message:send', { message: userMsg(uid(), 'x', { taskId: t.id }) }),
      400,
      'FAILED_PRECONDITION',
      'UNSUPPORTED_OPERATION',
    );
  });

  it('subscribe to a terminal task: 400 FAILED_PRECONDITION UNSUPPORTED_OPERATION', async () => {
    const t = await sendRest('', uid('tck-complete-task'));
    await expectRestError(
      await rest(tck, 'POST', `/tasks/${t.id}:subscribe`),
      400,
      'FAILED_PRECONDITION',
      'UNSUPPORTED_OPERATION',
    );
  });

  it('push config on a host that turned push off: 400 FAILED_PRECONDITION PUSH_NOTIFICATION_NOT_SUPPORTED', async () => {
    const { value } = await restOk(
      noPush,
      'POST',
      '/message:send',
      { message: userMsg(uid()) },
      SendMessageResponseSchema,
    );
    if (!('task' in value)) throw new Error('expected a task');
    await expectRestError(
      await rest(noPush, 'POST', `/tasks/${value.task.id}/pushNotificationConfigs`, {
        url: 'https://example.com/h',
      }),
      400,
      'FAILED_PRECONDITION',
      'PUSH_NOTIFICATION_NOT_SUPPORTED',
    );
  });
  it('push config on an agent whose card declares nothing: created (the server delivers, and its card says so)', async () => {
    const { value } = await restOk(
      echo,
      'POST',
      '/message:send',
      { message: userMsg(uid()) },
      SendMessageResponseSchema,
    );
    if (!('task' in value)) throw new Error('expected a task');
    const res = await rest(echo, 'POST', `/tasks/${value.task.id}/pushNotificationConfigs`, {
      url: 'https://example.com/h',
    });
    expect(res.status).toBe(201);
    await res.body?.cancel();
  });

  it('extended card not declared: 400 FAILED_PRECONDITION UNSUPPORTED_OPERATION', async () => {
    await expectRestError(
      await rest(echo, 'GET', '/extendedAgentCard'),
      400,
      'FAILED_PRECONDITION',
      'UNSUPPORTED_OPERATION',
    );
  });

  it('extended card declared but not configured: 400 FAILED_PRECONDITION EXTENDED_AGENT_CARD_NOT_CONFIGURED', async () => {
    await expectRestError(
      await rest(noExtended, 'GET', '/extendedAgentCard'),
      400,
      'FAILED_PRECONDITION',
      'EXTENDED_AGENT_CARD_NOT_CONFIGURED',
    );
  });

  it('validation failure: 400 INVALID_ARGUMENT INVALID_PARAMS', async () => {
    await expectRestError(
      await rest(tck, 'POST', '/message:send', { message: { role: 'ROLE_USER', parts: [{ text: 'x' }] } }),
      400,
      'INVALID_ARGUMENT',
      'INVALID_PARAMS',
    );
    await expectRestError(
      await rest(tck, 'GET', '/tasks?pageSize=0'),
      400,
      'INVALID_ARGUMENT',
      'INVALID_PARAMS',
    );
    await expectRestError(
      await rest(tck, 'GET', '/tasks?status=NOT_A_STATE'),
      400,
      'INVALID_ARGUMENT',
      'INVALID_PARAMS',
    );
  });

  it('malformed JSON body: 400 INVALID_ARGUMENT PARSE_ERROR', async () => {
    const res = await tck.fetch(
      new Request(`${BASE}/message:send`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
        body: '{"message": ',
      }),
    );
    await expectRestError(res, 400, 'INVALID_ARGUMENT', 'PARSE_ERROR');
  });

  it('a JSON body that is not an object is a validation error, not a content-type error', async () => {
    const res = await tck.fetch(
      new Request(`${BASE}/message:send`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
        body: '[1,2,3]',
      }),
    );
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { status: string; details: { reason: string }[] } };
    expect(body.error.status).toBe('INVALID_ARGUMENT');
    // A JSON body of the wrong shape is a validation error (-32602 / -32600), not CONTENT_TYPE_NOT_SUPPORTED.
    expect(['INVALID_PARAMS', 'INVALID_REQUEST']).toContain(body.error.details[0]?.reason);
  });

  it('an unsupported Content-Type: 400 INVALID_ARGUMENT CONTENT_TYPE_NOT_SUPPORTED (A2A v1.0.1)', async () => {
    const res = await tck.fetch(
      new Request(`${BASE}/message:send`, {
        method: 'POST',
        headers: { 'Content-Type': 'text/xml', 'A2A-Version': '1.0' },
        body: '<x/>',
      }),
    );
    await expectRestError(res, 400, 'INVALID_ARGUMENT', 'CONTENT_TYPE_NOT_SUPPORTED');
  });

  it('an unknown path is 404 and a known path with the wrong verb is 405 with Allow', async () => {
    const nf = await rest(tck, 'GET', '/nothing/here/at/all/really');
    expect(nf.status).toBe(404);
    expect(((await nf.json()) as { error: { status: string } }).error.status).toBe('NOT_FOUND');
    const na = await rest(tck, 'DELETE', '/message:send');
    expect(na.status).toBe(405);
    expect(na.headers.get('allow')).toBe('POST');
    await na.body?.cancel();
  });

  it('accepts application/json as well as application/a2a+json on input', async () => {
    const res = await rest(
      tck,
      'POST',
      '/message:send',
      { message: userMsg(uid('tck-complete-task')) },
      { 'Content-Type': 'application/json' },
    );
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });
});

describe('REST query parameters (§11.5)', () => {
  it('GET /tasks/{id}?historyLength=0 omits history; =1 keeps the latest message', async () => {
    const t = await sendRest('', uid('tck-complete-task'));
    expect((t.history ?? []).length).toBeGreaterThanOrEqual(2);
    const zero = await restOk(tck, 'GET', `/tasks/${t.id}?historyLength=0`, undefined, TaskSchema);
    expect(zero.raw).not.toHaveProperty('history');
    const one = await restOk(tck, 'GET', `/tasks/${t.id}?historyLength=1`, undefined, TaskSchema);
    expect(one.value.history).toHaveLength(1);
    expect(one.value.history?.[0]?.messageId).toBe(t.history?.at(-1)?.messageId);
  });

  it('A2A-Version may come as a query parameter (§3.6.1)', async () => {
    const res = await tck.fetch(new Request(`${BASE}/tasks?A2A-Version=0.3`));
    await expectRestError(res, 400, 'FAILED_PRECONDITION', 'VERSION_NOT_SUPPORTED');
  });
});
