/**
 * Service parameters (A2A v1.0): `A2A-Version` (1.0 served; missing or empty served as
 * 1.0; a patch number ignored; anything else VersionNotSupported -32009) and `A2A-Extensions` (parsed, the
 * activated ones echoed, unknown ones ignored, a `required: true` extension enforced with -32008).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { SendMessageResponseSchema } from '../../../src/protocol/schemas/index.js';
import { BASE, expectRestError, expectRpcError, rpcJson, uid, userMsg } from '../../helpers/http.js';
import { inlineServer, rest, rpc, rpcOk } from './fixtures.js';

const EXT = 'https://example.com/ext/tracing/v1';
const REQUIRED = 'https://example.com/ext/must-follow/v1';

const plain = inlineServer(async (ctx) => ctx.complete('ok'), {
  capabilities: { streaming: true, extensions: [{ uri: EXT, description: 'tracing', required: false }] },
});
let seenRequested: readonly string[] = [];
const strict = inlineServer(
  async (ctx) => {
    seenRequested = ctx.requestedExtensions;
    await ctx.complete('ok');
  },
  {
    capabilities: {
      streaming: true,
      extensions: [
        { uri: REQUIRED, description: 'must be followed', required: true },
        { uri: EXT, description: 'tracing', required: false },
      ],
    },
  },
);

afterAll(async () => {
  await Promise.all([plain.close(), strict.close()]);
});

function rpcRaw(headers: Record<string, string>, method = 'ListTasks', params: unknown = {}): Request {
  return new Request(`${BASE}/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
}

describe('A2A-Version', () => {
  it('1.0 is served', async () => {
    const env = await rpc(plain, 'ListTasks', {}, { 'A2A-Version': '1.0' });
    expect(env.error).toBeUndefined();
  });

  it('a missing header is served as 1.0 (JSON-RPC and REST)', async () => {
    const env = await rpcJson(await plain.fetch(rpcRaw({})));
    expect(env.error).toBeUndefined();
    const res = await plain.fetch(new Request(`${BASE}/tasks`));
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });

  it('an empty header is served as 1.0', async () => {
    const env = await rpcJson(await plain.fetch(rpcRaw({ 'A2A-Version': '' })));
    expect(env.error).toBeUndefined();
  });

  it('a patch number does not influence negotiation (1.0.1 is 1.0)', async () => {
    const env = await rpcJson(await plain.fetch(rpcRaw({ 'A2A-Version': '1.0.1' })));
    expect(env.error).toBeUndefined();
  });

  for (const v of ['0.3', '2.0', '1.1', 'banana']) {
    it(`${v} is refused with -32009 VERSION_NOT_SUPPORTED (JSON-RPC) / 400 FAILED_PRECONDITION (REST)`, async () => {
      expectRpcError(
        await rpcJson(await plain.fetch(rpcRaw({ 'A2A-Version': v }))),
        -32009,
        'VERSION_NOT_SUPPORTED',
      );
      await expectRestError(
        await plain.fetch(new Request(`${BASE}/tasks`, { headers: { 'A2A-Version': v } })),
        400,
        'FAILED_PRECONDITION',
        'VERSION_NOT_SUPPORTED',
      );
    });
  }

  it('an unsupported version refuses a send before the agent runs', async () => {
    let ran = false;
    const s = inlineServer(async (ctx) => {
      ran = true;
      await ctx.complete();
    });
    try {
      const env = await rpcJson(
        await s.fetch(rpcRaw({ 'A2A-Version': '0.3' }, 'SendMessage', { message: userMsg(uid()) })),
      );
      expectRpcError(env, -32009, 'VERSION_NOT_SUPPORTED');
      const list = await rpc(s, 'ListTasks', {});
      expect((list.result as { tasks: unknown[] }).tasks).toHaveLength(0);
      expect(ran).toBe(false);
    } finally {
      await s.close();
    }
  });
});

describe('A2A-Extensions', () => {
  it('echoes the declared extensions the client requested and ignores unknown ones', async () => {
    const res = await plain.fetch(
      new Request(`${BASE}/`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'A2A-Version': '1.0',
          'A2A-Extensions': ` ${EXT} , https://unknown.example/ext/v9,${EXT}`,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'SendMessage',
          params: { message: userMsg(uid()) },
        }),
      }),
    );
    const echoed = (res.headers.get('a2a-extensions') ?? '').split(',').map((s) => s.trim());
    expect(echoed).toEqual([EXT]);
    const env = await rpcJson(res);
    expect(env.error).toBeUndefined();
  });

  it('echoes on REST too', async () => {
    const res = await rest(
      plain,
      'POST',
      '/message:send',
      { message: userMsg(uid()) },
      { 'A2A-Extensions': EXT },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('a2a-extensions')).toBe(EXT);
    await res.body?.cancel();
  });

  it('sends no A2A-Extensions header when nothing was activated', async () => {
    const res = await rest(plain, 'POST', '/message:send', { message: userMsg(uid()) });
    expect(res.headers.get('a2a-extensions')).toBeNull();
    await res.body?.cancel();
  });

  it('a required extension missing from A2A-Extensions is -32008 EXTENSION_SUPPORT_REQUIRED', async () => {
    expectRpcError(
      await rpc(strict, 'SendMessage', { message: userMsg(uid()) }),
      -32008,
      'EXTENSION_SUPPORT_REQUIRED',
    );
    expectRpcError(
      await rpc(strict, 'SendMessage', { message: userMsg(uid()) }, { 'A2A-Extensions': EXT }),
      -32008,
      'EXTENSION_SUPPORT_REQUIRED',
    );
    await expectRestError(
      await rest(strict, 'POST', '/message:send', { message: userMsg(uid()) }),
      400,
      'FAILED_PRECONDITION',
      'EXTENSION_SUPPORT_REQUIRED',
    );
    await expectRestError(
      await rest(strict, 'POST', '/message:stream', { message: userMsg(uid()) }),
      400,
      'FAILED_PRECONDITION',
      'EXTENSION_SUPPORT_REQUIRED',
    );
  });

  it('a send that lists the required extension is served, and the agent sees the requested list', async () => {
    const r = await rpcOk(strict, 'SendMessage', { message: userMsg(uid()) }, SendMessageResponseSchema, {
      'A2A-Extensions': `${REQUIRED}, ${EXT}`,
    });
    if (!('task' in r)) throw new Error('expected a task');
    expect(r.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect([...seenRequested].sort()).toEqual([EXT, REQUIRED].sort());
  });
});
