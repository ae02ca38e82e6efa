/**
 * A messageId the server already holds, sent again with different content, is refused on both bindings
 * (docs/semantics.md §3, "Reusing a messageId"): a retry must be the identical message. The exact wire a peer sees
 * is asserted (code, HTTP status, ErrorInfo reason, domain and metadata), the identical retry is a replay, and
 * nothing runs for the refused message.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_EXTENSION_URI, IDEMPOTENCY_METADATA_KEY } from '../../../src/idempotency/index.js';
import { BASE, uid, userMsg, V1 } from '../../helpers/http.js';
import { inlineServer } from './fixtures.js';

/** Counts runs; the first turn of a task asks for input, so the task can take a continuation. */
let runs = 0;
const server = inlineServer(async (ctx) => {
  runs += 1;
  if (ctx.task.history?.length === 1) await ctx.requireInput('more please');
  else await ctx.complete('done');
});

afterAll(async () => {
  await server.close();
});

type Binding = 'JSONRPC' | 'HTTP+JSON';

interface Answer {
  readonly httpStatus: number;
  /** The task of a success. */
  readonly task?: { id: string; status: { state: string }; history?: { messageId: string }[] };
  /** The error as the binding sent it: JSON-RPC `error`, or REST `error` (google.rpc.Status). */
  readonly error?: {
    code: number;
    status?: string;
    message: string;
    data?: Record<string, unknown>[];
    details?: Record<string, unknown>[];
  };
}

async function send(binding: Binding, message: Record<string, unknown>): Promise<Answer> {
  const headers = { ...V1, 'Content-Type': 'application/json', 'A2A-Extensions': IDEMPOTENCY_EXTENSION_URI };
  const req =
    binding === 'JSONRPC'
      ? new Request(`${BASE}/`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }),
        })
      : new Request(`${BASE}/message:send`, { method: 'POST', headers, body: JSON.stringify({ message }) });
  const res = await server.fetch(req);
  const body = (await res.json()) as Record<string, unknown>;
  if (binding === 'JSONRPC') {
    const result = body.result as { task?: Answer['task'] } | undefined;
    return { httpStatus: res.status, task: result?.task, error: body.error as Answer['error'] };
  }
  return {
    httpStatus: res.status,
    task: (body as { task?: Answer['task'] }).task,
    error: body.error as Answer['error'],
  };
}

/** The ErrorInfo of an answer (JSON-RPC `data[0]`, REST `details[0]`). */
function infoOf(a: Answer): Record<string, unknown> {
  const info = a.error?.data?.[0] ?? a.error?.details?.[0];
  if (!info) throw new Error(`expected an error with ErrorInfo, got ${JSON.stringify(a)}`);
  return info;
}

/** The refusal as each binding sends it: -32602 with HTTP 200, or HTTP 400 INVALID_ARGUMENT. */
function expectReused(binding: Binding, a: Answer, metadata: Record<string, string>): void {
  if (binding === 'JSONRPC') {
    expect(a.httpStatus).toBe(200);
    expect(a.error?.code).toBe(-32602);
  } else {
    expect(a.httpStatus).toBe(400);
    expect(a.error?.code).toBe(400);
    expect(a.error?.status).toBe('INVALID_ARGUMENT');
  }
  expect(a.task).toBeUndefined();
  expect(infoOf(a)).toEqual({
    '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
    reason: 'IDEMPOTENCY_KEY_REUSED',
    domain: 'a2a-once',
    metadata,
  });
}

describe.each(['JSONRPC', 'HTTP+JSON'] as const)('a reused messageId over %s', (binding) => {
  it('in the task it names, with different content: refused; the identical message replays', async () => {
    const first = await send(binding, userMsg(uid('first')));
    const task = first.task!;
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const answer = userMsg(uid('answer'), 'the answer', { taskId: task.id });
    const done = await send(binding, answer);
    expect(done.task?.status.state).toBe('TASK_STATE_COMPLETED');
    const before = runs;

    const changed = await send(binding, { ...answer, parts: [{ text: 'another answer' }] });
    expectReused(binding, changed, { messageId: answer.messageId as string, taskId: task.id });
    expect(changed.error?.message).toBe(
      `messageId ${String(answer.messageId)} was already used in task ${task.id} with different content`,
    );

    const retry = await send(binding, answer);
    expect(retry.task?.id).toBe(task.id);
    expect(retry.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(runs).toBe(before);
  });

  it('the first message of the task, resent with different content: refused', async () => {
    const msg = userMsg(uid('first'));
    const task = (await send(binding, msg)).task!;
    const before = runs;
    const changed = await send(binding, { ...msg, taskId: task.id, parts: [{ text: 'not what I said' }] });
    expectReused(binding, changed, { messageId: msg.messageId as string, taskId: task.id });
    expect(runs).toBe(before);
  });

  it('under an idempotency key, with different content: refused, naming the message that holds the key', async () => {
    const key = `reuse-${uid()}-0123456789`;
    const msg = userMsg(uid('keyed'), 'pay 10', { metadata: { [IDEMPOTENCY_METADATA_KEY]: key } });
    const first = (await send(binding, msg)).task!;
    const before = runs;
    const changed = await send(binding, { ...msg, parts: [{ text: 'pay 1000' }] });
    expectReused(binding, changed, { heldByMessageId: msg.messageId as string });
    expect(changed.error?.message).toBe(
      `Idempotency key was already used for message ${String(msg.messageId)} with different content`,
    );
    const retry = await send(binding, msg);
    expect(retry.task?.id).toBe(first.id);
    expect(runs).toBe(before);
  });
});
