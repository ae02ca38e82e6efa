/**
 * The v0.3 HTTP+JSON wire of a compat server over real HTTP (ADR 0100, ADR 0098, ADR 0099): proto-JSON bodies
 * and answers, a keyed retry that replays (the agent ran once), the v0.3 error shape with its HTTP statuses,
 * -32008 and -32009 keeping their v1.0 codes in v0.3 answers, the `/v1` path rule with compat on and off, and
 * the extended card over both v0.3 bindings in v0.3 form with security and a verified signature.
 */
import { isLegacyAgentCard } from '@a2a-js/sdk/compat/v0_3/client';
import { flattenedVerify, importJWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/card-signing/jcs.js';
import { IDEMPOTENCY_METADATA_KEY } from '../../../src/idempotency/index.js';
import { bearerTokens } from '../../../src/server/auth/bearer-tokens.js';
import { createA2AServer } from '../../../src/server/index.js';
import { serveNode } from '../../../src/server/node/index.js';
import { silentLogger } from '../../../src/server/observability/logger.js';
import { testKey, type TestKey } from '../../card-signing/keys.js';
import { closeNode } from '../../helpers/close-node.js';

let runs = 0;
const agent = {
  execute: async (ctx: { userText: string; complete: (t: string) => Promise<void> }) => {
    runs++;
    await ctx.complete(`echo: ${ctx.userText}`);
  },
};
const TOKEN = 'v03-wire-token-1';
const auth = { Authorization: `Bearer ${TOKEN}` };
type Handle = Awaited<ReturnType<typeof serveNode>>;
let on: Handle;
let off: Handle;
let strict: Handle;
let key: TestKey;

beforeAll(async () => {
  key = await testKey('v03-wire');
  const card = {
    name: 'wire',
    description: 'v0.3 wire',
    capabilities: { streaming: true, extendedAgentCard: true },
  };
  on = await serveNode(
    createA2AServer({
      agent,
      card,
      compat: ['0.3'],
      logger: silentLogger,
      http: { authenticate: bearerTokens({ tokens: [{ token: TOKEN, principal: 'p', tenants: '*' }] }) },
      cardSigning: { keys: [key.privateJwk] },
      extendedCard: {
        ...card,
        supportedInterfaces: [],
        version: '1.0.0',
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [
          {
            id: 'secret',
            name: 'Secret',
            description: 'For callers',
            tags: ['x'],
            securityRequirements: [{ schemes: { bearer: { list: ['run'] } } }],
          },
        ],
      },
    }).fetch,
    { host: '127.0.0.1', port: 0 },
  );
  off = await serveNode(createA2AServer({ agent, card, logger: silentLogger }).fetch, {
    host: '127.0.0.1',
    port: 0,
  });
  strict = await serveNode(
    createA2AServer({
      agent,
      card: { ...card, capabilities: { extensions: [{ uri: 'https://ext.test/required', required: true }] } },
      compat: ['0.3'],
      logger: silentLogger,
    }).fetch,
    { host: '127.0.0.1', port: 0 },
  );
});
afterAll(async () => {
  await Promise.all([closeNode(on), closeNode(off), closeNode(strict)]);
});

const base = (h: Handle) => h.url.replace(/\/$/, '');

async function call(
  h: Handle,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const res = await fetch(`${base(h)}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...auth, ...headers },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    text,
    json: text ? (JSON.parse(text) as Record<string, unknown>) : {},
  };
}

const protoSend = (messageId: string, text: string, metadata?: Record<string, unknown>) => ({
  message: { messageId, role: 'ROLE_USER', content: [{ text }], ...(metadata ? { metadata } : {}) },
});

describe('v0.3 HTTP+JSON bodies', () => {
  it('answers message:send with { task } in proto-JSON: enums, content, status message', async () => {
    const r = await call(on, 'POST', '/v1/message:send', protoSend('w-1', 'hi'));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('application/json');
    const task = r.json.task as {
      id: string;
      status: { state: string; message?: { role: string; content: unknown[] } };
    };
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.status.message?.role).toBe('ROLE_AGENT');
    expect(task.status.message?.content).toEqual([{ text: 'echo: hi' }]);
    const got = await call(on, 'GET', `/v1/tasks/${task.id}?historyLength=0`);
    expect((got.json as { id: string }).id).toBe(task.id);
    expect(got.json.history).toBeUndefined();
  });

  it('streams { task } | { statusUpdate } | { artifactUpdate } objects, the last one final', async () => {
    const res = await fetch(`${base(on)}/v1/message:stream`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', ...auth },
      body: JSON.stringify(protoSend('w-2', 'hi')),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const frames = (await res.text())
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
    expect(frames.length).toBeGreaterThan(0);
    for (const f of frames) expect(Object.keys(f)).toHaveLength(1);
    const last = frames.at(-1) as { statusUpdate?: { final?: boolean; status: { state: string } } };
    expect(last.statusUpdate?.final).toBe(true);
    expect(last.statusUpdate?.status.state).toBe('TASK_STATE_COMPLETED');
  });

  it('replays a keyed retry: the same task, the agent ran once', async () => {
    const before = runs;
    const k = { [IDEMPOTENCY_METADATA_KEY]: `v03-rest-key-${Date.now()}-abcdef` };
    const a = await call(on, 'POST', '/v1/message:send', protoSend('w-key', 'once', k));
    const b = await call(on, 'POST', '/v1/message:send', protoSend('w-key', 'once', k));
    expect((b.json.task as { id: string }).id).toBe((a.json.task as { id: string }).id);
    expect(runs - before).toBe(1);
  });

  it('accepts a null body on an empty POST (as v0.3 clients send it)', async () => {
    const a = await call(on, 'POST', '/v1/message:send', protoSend('w-null', 'hi'));
    const r = await call(on, 'POST', `/v1/tasks/${(a.json.task as { id: string }).id}:cancel`, 'null');
    // A finished task cannot be canceled: the v0.3 code, HTTP 400 as a2a-js answers it.
    expect(r.status).toBe(400);
    expect(r.json.code).toBe(-32002);
  });
});

describe('v0.3 HTTP+JSON errors', () => {
  it('answers { code, message, data } with the v0.3 HTTP status', async () => {
    const r = await call(on, 'GET', '/v1/tasks/no-such-task');
    expect(r.status).toBe(404);
    expect(r.json).toMatchObject({ code: -32001 });
    expect(typeof r.json.message).toBe('string');
    const bad = await call(on, 'POST', '/v1/message:send', {
      message: { messageId: 'x', role: 'ROLE_USER', content: [{}] },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe(-32602);
    expect(String(bad.json.message)).toContain('content[0]');
    const verb = await call(on, 'DELETE', '/v1/message:send');
    expect(verb.status).toBe(405);
    expect(verb.headers.get('allow')).toBe('POST');
    const unknown = await call(on, 'GET', '/v1/tasks/t-1/nothing');
    expect(unknown.json.code).toBe(-32601);
  });

  it('keeps -32009 (VersionNotSupported) and -32008 (ExtensionSupportRequired) in v0.3 answers', async () => {
    const v = await call(on, 'POST', '/v1/message:send', protoSend('w-v', 'hi'), { 'A2A-Version': '0.4' });
    expect(v.status).toBe(400);
    expect(v.json.code).toBe(-32009);
    const rest = await call(strict, 'POST', '/v1/message:send', protoSend('w-e', 'hi'));
    expect(rest.status).toBe(400);
    expect(rest.json.code).toBe(-32008);
    const rpc = await call(strict, 'POST', '/', {
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: {
        message: { kind: 'message', messageId: 'w-e2', role: 'user', parts: [{ kind: 'text', text: 'hi' }] },
      },
    });
    expect((rpc.json.error as { code: number }).code).toBe(-32008);
  });

  it("a push config set without an id is the task's config, and get without an id reads it (v0.3 convention)", async () => {
    const rpc = (method: string, params: unknown) =>
      call(on, 'POST', '/', { jsonrpc: '2.0', id: 1, method, params }).then((r) => r.json);
    const sent = await rpc('message/send', {
      message: {
        kind: 'message',
        messageId: 'w-push-1',
        role: 'user',
        parts: [{ kind: 'text', text: 'hi' }],
      },
    });
    const taskId = (sent.result as { id: string }).id;
    const set = await rpc('tasks/pushNotificationConfig/set', {
      taskId,
      pushNotificationConfig: { url: 'https://example.com/hook', token: 't-1' },
    });
    expect(set.error).toBeUndefined();
    expect((set.result as { pushNotificationConfig: { id: string } }).pushNotificationConfig.id).toBe(taskId);
    const got = await rpc('tasks/pushNotificationConfig/get', { id: taskId });
    expect(got.error).toBeUndefined();
    expect(got.result).toMatchObject({
      taskId,
      pushNotificationConfig: { id: taskId, url: 'https://example.com/hook', token: 't-1' },
    });
    const missing = await rpc('tasks/pushNotificationConfig/get', { id: 'no-such-task' });
    expect((missing.error as { code: number }).code).toBe(-32001);
  });
});

describe('the /v1 path rule', () => {
  const v1Body = { message: { messageId: 'v1-m', role: 'ROLE_USER', parts: [{ text: 'hi' }] } };

  it('compat on: /v1/... is v0.3 without A2A-Version, the v1.0 route of tenant "v1" with A2A-Version: 1.0', async () => {
    const v03 = await call(on, 'POST', '/v1/message:send', protoSend('p-1', 'hi'));
    expect((v03.json.task as { status: { state: string } }).status.state).toBe('TASK_STATE_COMPLETED');
    const v1 = await call(
      on,
      'POST',
      '/v1/message:send',
      { ...v1Body, message: { ...v1Body.message, messageId: 'p-2' } },
      {
        'A2A-Version': '1.0',
      },
    );
    expect(v1.status).toBe(200);
    const task = v1.json.task as { id: string; status: { state: string } };
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    // The tenant-"v1" task is read back through the v1.0 route of that tenant.
    const back = await call(on, 'GET', `/v1/tasks/${task.id}`, undefined, { 'A2A-Version': '1.0' });
    expect((back.json as { id: string }).id).toBe(task.id);
  });

  it('compat off: /v1/... is the v1.0 route of tenant "v1", a v0.3 body is refused as v1.0 input', async () => {
    const v1 = await call(off, 'POST', '/v1/message:send', v1Body);
    expect((v1.json.task as { status: { state: string } }).status.state).toBe('TASK_STATE_COMPLETED');
    const v03 = await call(off, 'POST', '/v1/message:send', protoSend('p-3', 'hi'));
    expect(v03.status).toBe(400);
    expect((v03.json.error as { status: string }).status).toBe('INVALID_ARGUMENT');
    expect((await call(off, 'GET', '/v1/card')).status).toBe(404);
  });
});

describe('the extended card in v0.3 form', () => {
  async function verifies(served: Record<string, unknown>): Promise<void> {
    const { signatures, ...rest } = served as { signatures: { protected: string; signature: string }[] };
    expect(signatures.length).toBeGreaterThan(0);
    const payload = Buffer.from(canonicalJson(rest)).toString('base64url');
    const pub = await importJWK(key.publicJwk, key.publicJwk.alg);
    for (const s of signatures) await flattenedVerify({ ...s, payload }, pub);
  }

  it('agent/getAuthenticatedExtendedCard answers the v0.3 JSON card with security and a signature', async () => {
    const r = await call(on, 'POST', '/', {
      jsonrpc: '2.0',
      id: 1,
      method: 'agent/getAuthenticatedExtendedCard',
    });
    const card = r.json.result as Record<string, unknown>;
    expect(isLegacyAgentCard(card)).toBe(true);
    expect((card.securitySchemes as Record<string, unknown>).bearer).toMatchObject({
      type: 'http',
      scheme: 'Bearer',
    });
    expect(card.security).toEqual([{ bearer: [] }]);
    expect((card.skills as { security: unknown }[])[0]!.security).toEqual([{ bearer: ['run'] }]);
    await verifies(card);
  });

  it('GET /v1/card answers the v0.3 proto-JSON card with security and a signature', async () => {
    const r = await call(on, 'GET', '/v1/card');
    expect(r.status).toBe(200);
    expect(r.json.protocolVersion).toBe('0.3.0');
    expect((r.json.securitySchemes as Record<string, unknown>).bearer).toMatchObject({
      httpAuthSecurityScheme: { scheme: 'Bearer' },
    });
    // Proto-JSON leaves an empty list out, as a2a-js writes it too.
    expect(r.json.security).toEqual([{ schemes: { bearer: {} } }]);
    expect((r.json.skills as { security: unknown }[])[0]!.security).toEqual([
      { schemes: { bearer: { list: ['run'] } } },
    ]);
    await verifies(r.json);
    expect((await call(on, 'GET', '/v1/card', undefined, { Authorization: 'Bearer wrong' })).status).toBe(
      401,
    );
  });
});
