/**
 * Streams over real sockets (A2A v1.0): SSE framing for both bindings, stream shapes (task lifecycle,
 * message-only), where streams end (terminal, INPUT_REQUIRED, not AUTH_REQUIRED), refusals before the first
 * event answered as plain JSON, artifact chunks, and several subscribers of one task seeing the same events in
 * the same order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StreamResponse } from '../../../src/protocol/model.js';
import { StreamResponseSchema, TaskSchema } from '../../../src/protocol/schemas/index.js';
import type { A2AServer } from '../../../src/server/index.js';
import { serveNode, type NodeServerHandle } from '../../../src/server/node/index.js';
import {
  expectRestError,
  expectRpcError,
  parseAs,
  parseSseText,
  readSse,
  restRequest,
  rpcJson,
  rpcRequest,
  SseReader,
  uid,
  userMsg,
  type SseFrame,
} from '../../helpers/http.js';
import { builtinServer, inlineServer } from './fixtures.js';
import { closeNode } from '../../helpers/close-node.js';

const servers: { tck: A2AServer; ask: A2AServer; slow: A2AServer; noStream: A2AServer } = {
  tck: builtinServer('tck'),
  ask: builtinServer('ask'),
  slow: builtinServer('slow', {}, 1200),
  noStream: inlineServer(async (ctx) => ctx.complete(), { capabilities: { streaming: false } }),
};
const url: Record<keyof typeof servers, string> = { tck: '', ask: '', slow: '', noStream: '' };
const handles: NodeServerHandle[] = [];

beforeAll(async () => {
  for (const k of Object.keys(servers) as (keyof typeof servers)[]) {
    const h = await serveNode(servers[k].fetch, { port: 0 });
    handles.push(h);
    url[k] = h.url;
  }
});

afterAll(async () => {
  await Promise.all(handles.map((h) => closeNode(h)));
  await Promise.all(Object.values(servers).map((s) => s.close()));
});

/** Label of a StreamResponse: task / message / status:STATE / artifact. */
function kind(ev: StreamResponse): string {
  if ('task' in ev) return 'task';
  if ('message' in ev) return 'message';
  if ('statusUpdate' in ev) return `status:${ev.statusUpdate.status.state}`;
  return 'artifact';
}

/** REST frames → validated StreamResponses (each frame has exactly one member key). */
function restEvents(frames: SseFrame[]): StreamResponse[] {
  return frames.map((f) => {
    expect(f.event).toBeUndefined();
    expect(Object.keys(f.data as object)).toHaveLength(1);
    return parseAs(StreamResponseSchema, f.data, 'REST stream event');
  });
}

/** JSON-RPC frames → validated StreamResponses (each a whole JSON-RPC response with the request id). */
function rpcEvents(frames: SseFrame[], id: string | number): StreamResponse[] {
  return frames.map((f) => {
    expect(f.event).toBeUndefined();
    const env = f.data as { jsonrpc: unknown; id: unknown; result: unknown; error?: unknown };
    expect(env.jsonrpc).toBe('2.0');
    expect(env.id).toBe(id);
    expect(env.error).toBeUndefined();
    expect(Object.keys(env.result as object)).toHaveLength(1);
    return parseAs(StreamResponseSchema, env.result, 'JSON-RPC stream event');
  });
}

function fetchSse(base: string, req: Request, signal?: AbortSignal): Promise<Response> {
  const u = new URL(req.url);
  return fetch(`${base}${u.pathname}${u.search}`, {
    method: req.method,
    headers: req.headers,
    ...(req.method !== 'GET' ? { body: req.body, duplex: 'half' } : {}),
    ...(signal ? { signal } : {}),
  });
}

describe('SSE framing', () => {
  it('REST: data-only frames of single-line JSON separated by blank lines, bare StreamResponse', async () => {
    const res = await fetchSse(
      url.tck,
      restRequest('POST', '/message:stream', { message: userMsg(uid('tck-stream-artifact-chunked')) }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    const text = await res.text();
    // Byte-level framing: every frame is exactly `id: <seq>\ndata: <json>\n\n` (ADR 0124).
    const ids: number[] = [];
    for (const block of text.split('\n\n').filter((b) => b !== '' && !b.startsWith(':'))) {
      expect(block).toMatch(/^id: (0|[1-9][0-9]*)\ndata: \{[^\n]*\}$/);
      ids.push(Number(/^id: (\d+)/.exec(block)![1]));
    }
    // A new task's snapshot is the task at sequence 0; each event after it is the log's next.
    expect(ids).toEqual([0, 1, 2, 3, 4]);
    const events = restEvents(parseSseText(text));
    expect(events.map(kind)).toEqual([
      'task',
      'status:TASK_STATE_WORKING',
      'artifact',
      'artifact',
      'status:TASK_STATE_COMPLETED',
    ]);
    const task = events[0] as { task: { id: string; contextId?: string } };
    for (const ev of events.slice(1)) {
      const inner =
        'statusUpdate' in ev ? ev.statusUpdate : 'artifactUpdate' in ev ? ev.artifactUpdate : undefined;
      expect(inner?.taskId).toBe(task.task.id);
      expect(inner?.contextId).toBe(task.task.contextId);
    }
  });

  it('JSON-RPC: every data line is a whole JSON-RPC response with the request id', async () => {
    const req = rpcRequest(
      'SendStreamingMessage',
      { message: userMsg(uid('tck-stream-001')) },
      { id: 'stream-1' },
    );
    const res = await fetchSse(url.tck, req);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = rpcEvents(await readSse(res), 'stream-1');
    expect(events.map(kind)).toEqual([
      'task',
      'status:TASK_STATE_WORKING',
      'artifact',
      'status:TASK_STATE_COMPLETED',
    ]);
  });
});

describe('artifact chunks (append / lastChunk)', () => {
  it('streams append and lastChunk flags, and the stored artifact holds both chunks', async () => {
    const res = await fetchSse(
      url.tck,
      restRequest('POST', '/message:stream', { message: userMsg(uid('tck-stream-artifact-chunked')) }),
    );
    const events = restEvents(await readSse(res));
    const chunks = events.flatMap((e) => ('artifactUpdate' in e ? [e.artifactUpdate] : []));
    expect(chunks).toHaveLength(2);
    expect(chunks[0]?.append).toBe(true);
    expect(chunks[0]?.lastChunk ?? false).toBe(false);
    expect(chunks[1]).toMatchObject({ append: true, lastChunk: true });
    expect(chunks[0]?.artifact.artifactId).toBe(chunks[1]?.artifact.artifactId);
    const taskId = chunks[0]!.taskId;
    const got = await fetch(`${url.tck}/tasks/${taskId}`, { headers: { 'A2A-Version': '1.0' } });
    const task = parseAs(TaskSchema, await got.json(), 'task');
    expect(task.artifacts).toHaveLength(1);
    expect(task.artifacts?.[0]?.parts).toEqual([{ text: 'chunk-1 ' }, { text: 'chunk-2' }]);
  });
});

describe('stream shapes and ends (§1.5)', () => {
  it('a message-only stream is exactly one message event, then close', async () => {
    const res = await fetchSse(
      url.tck,
      restRequest('POST', '/message:stream', { message: userMsg(uid('tck-message-response')) }),
    );
    const events = restEvents(await readSse(res));
    expect(events.map(kind)).toEqual(['message']);
  });

  it('ends at INPUT_REQUIRED', async () => {
    const res = await fetchSse(
      url.ask,
      restRequest('POST', '/message:stream', { message: userMsg(uid(), 'haiku') }),
    );
    const events = restEvents(await readSse(res));
    expect(events.at(-1) && kind(events.at(-1)!)).toBe('status:TASK_STATE_INPUT_REQUIRED');
    expect(events[0] && kind(events[0])).toBe('task');
  });

  it('ends at REJECTED (terminal)', async () => {
    const res = await fetchSse(
      url.tck,
      restRequest('POST', '/message:stream', { message: userMsg(uid('tck-reject-task')) }),
    );
    const events = restEvents(await readSse(res));
    expect(events.map(kind)).toEqual(['task', 'status:TASK_STATE_REJECTED']);
  });

  it('stays open at AUTH_REQUIRED; a cancel then ends it', async () => {
    const ctl = new AbortController();
    const res = await fetchSse(
      url.tck,
      restRequest('POST', '/message:stream', { message: userMsg(uid('tck-auth-required')) }),
      ctl.signal,
    );
    const sse = new SseReader(res);
    try {
      const task = parseAs(StreamResponseSchema, (await sse.frame()).data, 'event');
      if (!('task' in task)) throw new Error('first event must be the task');
      expect((await sse.frame()).data).toMatchObject({
        statusUpdate: { status: { state: 'TASK_STATE_AUTH_REQUIRED' } },
      });
      expect(await sse.next(400)).toBe('timeout');
      const cancel = await fetch(`${url.tck}/tasks/${task.task.id}:cancel`, {
        method: 'POST',
        headers: { 'A2A-Version': '1.0' },
      });
      expect(cancel.status).toBe(200);
      expect((await sse.frame()).data).toMatchObject({
        statusUpdate: { status: { state: 'TASK_STATE_CANCELED' } },
      });
      expect(await sse.next(5000)).toBe('end');
    } finally {
      ctl.abort();
      await sse.close();
    }
  });
});

describe('refusals before the first event are plain JSON, not SSE', () => {
  it('JSON-RPC SendStreamingMessage to a completed task: -32004 as application/json', async () => {
    const done = await fetch(`${url.tck}/message:send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ message: userMsg(uid('tck-complete-task')) }),
    });
    const taskId = ((await done.json()) as { task: { id: string } }).task.id;
    const res = await fetchSse(
      url.tck,
      rpcRequest('SendStreamingMessage', { message: userMsg(uid(), 'x', { taskId }) }, { id: 9 }),
    );
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const env = await rpcJson(res);
    expect(env.id).toBe(9);
    expectRpcError(env, -32004, 'UNSUPPORTED_OPERATION');
    const rs = await fetchSse(
      url.tck,
      restRequest('POST', '/message:stream', { message: userMsg(uid(), 'x', { taskId }) }),
    );
    await expectRestError(rs, 400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION');
  });

  it('an agent without capabilities.streaming refuses SendStreamingMessage and SubscribeToTask with -32004', async () => {
    const env = await rpcJson(
      await fetchSse(url.noStream, rpcRequest('SendStreamingMessage', { message: userMsg(uid()) })),
    );
    expectRpcError(env, -32004, 'UNSUPPORTED_OPERATION');
    const sent = await fetch(`${url.noStream}/message:send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ message: userMsg(uid()) }),
    });
    const taskId = ((await sent.json()) as { task: { id: string } }).task.id;
    const sub = await fetchSse(url.noStream, restRequest('POST', `/tasks/${taskId}:subscribe`));
    await expectRestError(sub, 400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION');
  });

  it('SubscribeToTask of an unknown task is -32001', async () => {
    const env = await rpcJson(await fetchSse(url.tck, rpcRequest('SubscribeToTask', { id: 'nope' })));
    expectRpcError(env, -32001, 'TASK_NOT_FOUND');
  });
});

describe('several subscribers of one task', () => {
  it('3 subscribers of one slow task receive identical event sequences; a 4th leaving early changes nothing', async () => {
    const sent = await fetch(`${url.slow}/message:send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({
        message: userMsg(uid(), 'take your time'),
        configuration: { returnImmediately: true },
      }),
    });
    const task = parseAs(TaskSchema, ((await sent.json()) as { task: unknown }).task, 'task');
    expect(['TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING']).toContain(task.status.state);

    const leaver = new AbortController();
    const [a, b, c, d] = await Promise.all([
      fetchSse(url.slow, restRequest('POST', `/tasks/${task.id}:subscribe`)),
      fetchSse(url.slow, restRequest('GET', `/tasks/${task.id}:subscribe`)),
      fetchSse(url.slow, rpcRequest('SubscribeToTask', { id: task.id }, { id: 'sub-c' })),
      fetchSse(url.slow, restRequest('POST', `/tasks/${task.id}:subscribe`), leaver.signal),
    ]);
    const dSse = new SseReader(d);
    expect((await dSse.frame()).data).toMatchObject({ task: { id: task.id } });
    leaver.abort();
    await dSse.close();

    const [fa, fb, fc] = await Promise.all([readSse(a), readSse(b), readSse(c)]);
    const ea = restEvents(fa);
    const eb = restEvents(fb);
    const ec = rpcEvents(fc, 'sub-c');
    expect(kind(ea[0]!)).toBe('task');
    expect(ea.at(-1) && kind(ea.at(-1)!)).toBe('status:TASK_STATE_COMPLETED');
    expect(ea.filter((e) => kind(e) === 'artifact')).toHaveLength(1);
    expect(eb).toEqual(ea);
    expect(ec).toEqual(ea);

    const got = await fetch(`${url.slow}/tasks/${task.id}`, { headers: { 'A2A-Version': '1.0' } });
    expect(parseAs(TaskSchema, await got.json(), 'task').status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('the first event of a subscription is the current task snapshot', async () => {
    const sent = await fetch(`${url.ask}/message:send`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ message: userMsg(uid(), 'poem') }),
    });
    const task = parseAs(TaskSchema, ((await sent.json()) as { task: unknown }).task, 'task');
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const ctl = new AbortController();
    const res = await fetchSse(url.ask, restRequest('GET', `/tasks/${task.id}:subscribe`), ctl.signal);
    const sse = new SseReader(res);
    try {
      const ev = parseAs(StreamResponseSchema, (await sse.frame()).data, 'event');
      if (!('task' in ev)) throw new Error('expected a task snapshot');
      expect(ev.task.id).toBe(task.id);
      expect(ev.task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    } finally {
      ctl.abort();
      await sse.close();
    }
  });
});
