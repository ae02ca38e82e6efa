/**
 * A push config created on a task that is already finished (ADR 0058): the webhook hears what happens from its
 * creation on, which for a finished task is nothing; the task's history is not replayed to it. A config created
 * while the task is live still starts before the first event (ADR 0045).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { A2AServer } from '../../../src/server/create-server.js';
import { restRequest, rpcRequest } from '../../helpers/http.js';
import { startReceiver, type Receiver } from './receiver.js';
import { FAST_PUSH, gate, pushServer, release } from './push-server.js';

const ANON = { tenant: '', owner: '' };
let server: A2AServer | undefined;
let receiver: Receiver | undefined;

afterEach(async () => {
  await server?.close();
  await receiver?.close();
  server = undefined;
  receiver = undefined;
});

async function send(text: string, returnImmediately = false): Promise<string> {
  const res = await server!.fetch(
    rpcRequest('SendMessage', {
      message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
      configuration: { returnImmediately },
    }),
  );
  return ((await res.json()) as { result: { task: { id: string } } }).result.task.id;
}

async function createConfig(taskId: string, id: string, url: string): Promise<void> {
  const res = await server!.fetch(
    restRequest('POST', `/tasks/${taskId}/pushNotificationConfigs`, { id, url }),
  );
  expect(res.status).toBe(201);
}

describe('a push config created after the task', () => {
  it('on a finished task: nothing of its history is sent, and its cursor stands at the last event', async () => {
    receiver = await startReceiver();
    server = pushServer(FAST_PUSH);
    const taskId = await send('finished');
    const record = await server.handler.options.store.getTask(ANON, taskId);
    expect(record?.task.status.state).toBe('TASK_STATE_COMPLETED');
    await createConfig(taskId, 'late', `${receiver.url}/late`);
    // Several polls and a commit nudge's worth of time: an old-style cursor would have replayed 1..3 by now.
    await new Promise((r) => setTimeout(r, 400));
    expect(receiver.received).toEqual([]);
    expect(await server.handler.options.store.getPushDelivery(ANON, taskId, 'late')).toMatchObject({
      deliveredSeq: record!.seq,
      taskSeq: record!.seq,
    });
  });

  it('on a live task: every event from the first, as before', async () => {
    receiver = await startReceiver();
    server = pushServer(FAST_PUSH);
    gate('live');
    const taskId = await send('live', true);
    await createConfig(taskId, 'early', `${receiver.url}/early`);
    release('live');
    await receiver.until((r) => r.firstAcks(taskId).length === 3);
    expect(receiver.firstAcks(taskId)).toEqual([1, 2, 3]);
  });
});
