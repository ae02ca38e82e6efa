/**
 * Gap repair against a real a2a-once server: createA2AServer + serveNode on loopback, a real task made by a real
 * send, and the receiver fetching it with GetTask through an `A2AClient` (docs/semantics.md §5, "Receiver").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient } from '../../src/client/index.js';
import type { StreamResponse, Task } from '../../src/protocol/model.js';
import { createA2AServer } from '../../src/server/create-server.js';
import { serveNode, type NodeServerHandle } from '../../src/server/node/index.js';
import { MemoryTaskStore } from '../../src/store/memory/index.js';
import { createWebhookReceiver, isRefusal, type ApplyInfo } from '../../src/webhooks/index.js';
import { delivery, labelOf, newSecret } from './sender.js';
import { closeNode } from '../helpers/close-node.js';

let http: NodeServerHandle;
let server: ReturnType<typeof createA2AServer>;
let client: A2AClient;
let task: Task;

beforeAll(async () => {
  server = createA2AServer({
    card: { name: 'webhook-peer', description: 'Makes one task with an artifact', capabilities: {} },
    store: new MemoryTaskStore(),
    agent: {
      async execute(ctx) {
        await ctx.working();
        await ctx.artifact({ name: 'answer', parts: [{ text: `done: ${ctx.userText}` }] });
        await ctx.complete();
      },
    },
  });
  http = await serveNode(server.fetch, { host: '127.0.0.1', port: 0 });
  client = await A2AClient.fromCardUrl(http.url);
  const result = await client.send('make a task');
  if (!('task' in result)) throw new Error('expected a task');
  task = result.task;
});

afterAll(async () => {
  await closeNode(http);
  await server.close();
});

describe('gap repair with GetTask from a real server', () => {
  it('fetches the task, hands over its snapshot, applies the event, and moves on', async () => {
    const secret = newSecret();
    const seen: { event: StreamResponse; info: ApplyInfo<undefined> }[] = [];
    const receiver = createWebhookReceiver({
      secret,
      getTask: client,
      reorderWindowMs: 0,
      apply: (event, info) => void seen.push({ event, info }),
    });
    const event = (seq: number): StreamResponse => ({
      statusUpdate: {
        taskId: task.id,
        contextId: task.contextId ?? 'ctx',
        status: {
          state: 'TASK_STATE_WORKING',
          message: { messageId: `m${seq}`, role: 'ROLE_AGENT', parts: [{ text: `event ${seq}` }] },
        },
      },
    });
    // Events 1 and 2 never arrived (given up by the sender, or sent before this receiver existed).
    const v = await receiver.receive(delivery(task.id, 3, { secret, event: event(3) }));
    expect(v).toEqual({ status: 200, body: { outcome: 'repaired', taskId: task.id, seq: 3 } });
    expect(seen.map((s) => labelOf(s.event))).toEqual(['snapshot', 'event 3']);
    const snapshot = seen[0]!.event as { task: Task };
    expect(snapshot.task.id).toBe(task.id);
    expect(snapshot.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(snapshot.task.artifacts?.[0]?.parts[0]).toEqual({ text: 'done: make a task' });
    expect(seen[0]!.info).toMatchObject({ kind: 'snapshot', missed: { from: 1, to: 2 } });
    // And it moves on: the next event is applied plainly.
    expect((await receiver.receive(delivery(task.id, 4, { secret, event: event(4) }))).body).toMatchObject({
      outcome: 'applied',
    });
  });

  it('a task the server does not know is a failed repair (502), not an apply', async () => {
    const secret = newSecret();
    const seen: StreamResponse[] = [];
    const receiver = createWebhookReceiver({
      secret,
      getTask: client,
      reorderWindowMs: 0,
      onError: () => undefined,
      apply: (event) => void seen.push(event),
    });
    const v = await receiver.receive(delivery('no-such-task', 2, { secret }));
    expect(v.status).toBe(502);
    expect(isRefusal(v) && v.body.error.reason).toBe('GAP_REPAIR_FAILED');
    expect(seen).toHaveLength(0);
  });
});
