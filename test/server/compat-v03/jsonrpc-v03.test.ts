/**
 * v0.3 JSON-RPC peers against our server over real HTTP (docs/guides/v03-peers.md, ADR 0097, ADR 0098): the
 * `@a2a-js/sdk` v0.3 transport sends, streams, gets and cancels; a keyed v0.3 retry replays the task (the agent
 * ran once); with compat off a v0.3 name is refused with VersionNotSupported, and a v1.0 name without
 * `A2A-Version` stays v1.0.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { createA2AServer } from '../../../src/server/index.js';
import { serveNode } from '../../../src/server/node/index.js';
import { IDEMPOTENCY_METADATA_KEY } from '../../../src/idempotency/index.js';
import { closeNode } from '../../helpers/close-node.js';

let runs = 0;
const agent = {
  execute: async (ctx: { userText: string; complete: (t: string) => Promise<void> }) => {
    runs++;
    await ctx.complete(`echo: ${ctx.userText}`);
  },
};
const card = { name: 'echo', description: 'Echoes', capabilities: { streaming: true } };

type Handle = Awaited<ReturnType<typeof serveNode>>;
let on: Handle;
let off: Handle;

beforeAll(async () => {
  on = await serveNode(createA2AServer({ agent: agent, card, compat: ['0.3'] }).fetch, {
    host: '127.0.0.1',
    port: 0,
  });
  off = await serveNode(createA2AServer({ agent: agent, card }).fetch, {
    host: '127.0.0.1',
    port: 0,
  });
});
afterAll(async () => {
  await closeNode(on);
  await closeNode(off);
});

async function rpc(url: string, method: string, params: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as {
    result?: Record<string, unknown>;
    error?: { code: number; message: string };
  };
}

const v03Send = (messageId: string, metadata?: Record<string, unknown>) => ({
  message: { kind: 'message', messageId, role: 'user', parts: [{ kind: 'text', text: 'hi' }], metadata },
});

describe('v0.3 JSON-RPC with compat on', () => {
  it('answers a refused tasks/resubscribe as one SSE event holding the error (v0.3 reads it as a stream)', async () => {
    const res = await fetch(on.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tasks/resubscribe',
        params: { id: 'no-such-task' },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const frames = (await res.text()).split('\n\n').filter((f) => f.startsWith('data: '));
    expect(frames).toHaveLength(1);
    const answer = JSON.parse(frames[0]!.slice('data: '.length)) as { id: number; error: { code: number } };
    expect(answer).toMatchObject({ id: 7, error: { code: -32001 } });
    // The same refusal of the v1.0 method stays a plain JSON answer.
    const v1 = await fetch(on.url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 8,
        method: 'SubscribeToTask',
        params: { id: 'no-such-task' },
      }),
    });
    expect(v1.headers.get('content-type')).toContain('application/json');
  });

  it('answers message/send with a v0.3 task: kind, kebab state', async () => {
    const r = await rpc(on.url, 'message/send', v03Send('m-plain'));
    expect(r.error).toBeUndefined();
    expect(r.result?.kind).toBe('task');
    expect((r.result?.status as { state: string }).state).toBe('completed');
    const got = await rpc(on.url, 'tasks/get', { id: r.result?.id });
    expect(got.result?.kind).toBe('task');
    expect(got.result?.id).toBe(r.result?.id);
  });

  it('replays a keyed v0.3 retry: same task, the agent ran once', async () => {
    const before = runs;
    const key = `v03-key-${Date.now()}-abcdef`;
    const a = await rpc(on.url, 'message/send', v03Send('m-key-1', { [IDEMPOTENCY_METADATA_KEY]: key }));
    const b = await rpc(on.url, 'message/send', v03Send('m-key-1', { [IDEMPOTENCY_METADATA_KEY]: key }));
    expect(a.result?.id).toBeDefined();
    expect(b.result?.id).toBe(a.result?.id);
    expect(runs - before).toBe(1);
  });

  it('serves the @a2a-js/sdk v0.3 transport: send, stream, get, cancel, resubscribe', async () => {
    const t = new LegacyJsonRpcTransport({ endpoint: on.url });
    const message = {
      messageId: 'sdk-1',
      contextId: '',
      taskId: '',
      role: 1,
      parts: [
        { content: { $case: 'text', value: 'hello' }, metadata: undefined, filename: '', mediaType: '' },
      ],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
    const sent = (await t.sendMessage({
      tenant: '',
      message,
      configuration: undefined,
      metadata: undefined,
    } as never)) as unknown as Record<string, unknown>;
    const task =
      (sent.payload as { value: { id: string; status: { state: number } } } | undefined)?.value ??
      (sent as never);
    expect(task.id).toBeTruthy();
    const got = (await t.getTask({
      tenant: '',
      id: task.id,
      historyLength: undefined,
    })) as unknown as { id: string; status: { state: number } };
    expect(got.id).toBe(task.id);
    expect(got.status.state).toBe(3); // TASK_STATE_COMPLETED
    const events: unknown[] = [];
    for await (const e of t.sendMessageStream({
      tenant: '',
      message: { ...message, messageId: 'sdk-2' },
    } as never))
      events.push(e);
    expect(events.length).toBeGreaterThan(0);
    // A finished task cannot be canceled: the v0.3 error code is the same -32002.
    await expect(t.cancelTask({ tenant: '', id: task.id, metadata: undefined })).rejects.toThrow();
    // Resubscribing to a finished task is refused as in v1.0 (-32004, which v0.3 reads as UnsupportedOperation).
    const resubscribe = async () => {
      for await (const _e of t.resubscribeTask({ tenant: '', id: task.id })) void _e;
    };
    await expect(resubscribe()).rejects.toThrow(/terminal state/);
  });
});

describe('version read by shape', () => {
  it('refuses a v0.3 name with VersionNotSupported naming the versions when compat is off', async () => {
    const r = await rpc(off.url, 'message/send', v03Send('m-off'));
    expect(r.error?.code).toBe(-32009);
    expect(r.error?.message).toContain('1.0');
  });

  it('serves a v1.0 name without A2A-Version as v1.0, compat on or off', async () => {
    const params = { message: { messageId: 'm-v1', role: 'ROLE_USER', parts: [{ text: 'hi' }] } };
    for (const h of [on, off]) {
      const r = await rpc(h.url, 'SendMessage', params);
      expect((r.result?.task as { status: { state: string } }).status.state).toBe('TASK_STATE_COMPLETED');
    }
  });

  it('refuses a v0.3 name sent with A2A-Version: 1.0', async () => {
    const r = await rpc(on.url, 'message/send', v03Send('m-mix'), { 'A2A-Version': '1.0' });
    expect(r.error?.code).toBe(-32009);
  });
});
