/**
 * The probes and the graceful close of an in-process server (docs/guides/production.md "Shutting down",
 * ADR 0088, ADR 0089): `/healthz` and `/readyz` before authentication, 503 while draining; new sends refused as
 * "nothing ran" (our client retries them), blocking sends answered with their task's latest state, streams ended
 * without an error event, and a close that returns within the grace with an agent that never returns.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { A2AClient } from '../../../src/client/index.js';
import { failureKindOf } from '../../../src/client/transport/failure-kind.js';
import { statusFailure } from '../../../src/client/transport/failure-kind.js';
import { fromRestError } from '../../../src/protocol/error-wire.js';
import { createA2AServer, type A2AServer } from '../../../src/server/create-server.js';
import { bearerTokens } from '../../../src/server/auth/bearer-tokens.js';
import { serveNode, type NodeServerHandle } from '../../../src/server/node/index.js';
import { silentLogger } from '../../../src/server/observability/logger.js';
import type { TaskStore } from '../../../src/store/task-store.js';
import { MemoryTaskStore } from '../../../src/store/memory/memory-task-store.js';
import { BASE, rpcRequest } from '../../helpers/http.js';

const card = { name: 'drain', description: 'drain tests', capabilities: { streaming: true } };
/** An agent that reports WORKING and then never returns, whatever its signal says. */
const stuck = {
  execute: async (ctx: { working(t: string): Promise<void> }) => {
    await ctx.working('on it');
    await new Promise(() => undefined);
  },
};

let servers: A2AServer[] = [];
let handles: NodeServerHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.map((h) => h.close({ graceMs: 0 })));
  await Promise.all(servers.map((s) => s.close({ graceMs: 0 })));
  servers = [];
  handles = [];
});

function server(options: Partial<Parameters<typeof createA2AServer>[0]> = {}): A2AServer {
  const s = createA2AServer({ agent: stuck, card, logger: silentLogger, ...options });
  servers.push(s);
  return s;
}

const send = (text: string, config: object = {}) =>
  rpcRequest('SendMessage', {
    message: { role: 'ROLE_USER', messageId: `m-${text}`, parts: [{ text }] },
    configuration: config,
  });

describe('probes', () => {
  it('answers /healthz and /readyz before authentication, no-store, with the checks', async () => {
    const s = server({
      http: {
        authenticate: bearerTokens({
          tokens: [{ token: 'secret-token-1234', principal: 'p', tenants: '*' }],
        }),
      },
    });
    await s.recovery?.startup;
    const health = await s.fetch(new Request(`${BASE}/healthz`));
    expect(health.status).toBe(200);
    expect(health.headers.get('cache-control')).toBe('no-store');
    const ready = await s.fetch(new Request(`${BASE}/readyz`));
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      ready: true,
      checks: { store: { ok: true }, schema: { ok: true }, recovery: { ok: true }, draining: { ok: true } },
    });
    // Everything else still needs the credential.
    expect((await s.fetch(send('x'))).status).toBe(401);
  });

  it('takes other paths, or none', async () => {
    const s = server({ http: { healthPath: '/live', readyPath: false } });
    expect((await s.fetch(new Request(`${BASE}/live`))).status).toBe(200);
    expect((await s.fetch(new Request(`${BASE}/readyz`))).status).toBe(404);
    expect((await s.fetch(new Request(`${BASE}/healthz`))).status).toBe(404);
    expect(() => server({ http: { readyPath: 'readyz' } })).toThrow(/must be a path starting with \//);
  });

  it('is 503 naming the store when the store does not answer within the bound', async () => {
    const store = new MemoryTaskStore();
    const silent = new Proxy(store, {
      get: (t, p) => (p === 'getTask' ? () => new Promise(() => undefined) : (Reflect.get(t, p) as unknown)),
    }) as TaskStore;
    const s = server({ store: silent });
    const started = Date.now();
    const ready = await s.fetch(new Request(`${BASE}/readyz`));
    expect(Date.now() - started).toBeLessThan(3500);
    expect(ready.status).toBe(503);
    const body = (await ready.json()) as { checks: Record<string, { ok: boolean; detail?: string }> };
    expect(body.checks.store).toEqual({ ok: false, detail: 'no answer within 2000 ms' });
  });
});

describe('graceful close', () => {
  it('refuses new sends with 503 + Retry-After that our client reads as refused, and /readyz says draining', async () => {
    const s = server();
    const closing = s.close({ graceMs: 300 });
    const res = await s.fetch(
      new Request(`${BASE}/message:send`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/a2a+json', 'A2A-Version': '1.0' },
        body: JSON.stringify({ message: { role: 'ROLE_USER', messageId: 'm1', parts: [{ text: 'hi' }] } }),
      }),
    );
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    const err = fromRestError(503, await res.json(), 1);
    const failure = statusFailure(res, err);
    expect(failure?.kind).toBe('refused');
    expect(failureKindOf(failure)).toBe('refused');
    const ready = await s.fetch(new Request(`${BASE}/readyz`));
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { checks: { draining: unknown } }).checks.draining).toEqual({
      ok: false,
      detail: 'the server is shutting down',
    });
    await closing;
  });

  it('answers a blocking send in flight with its latest state and returns within the grace, agent stuck', async () => {
    const s = server();
    const h = await serveNode(s.fetch);
    handles.push(h);
    const client = A2AClient.fromEndpoint(h.url, { peerHonoursKeys: true, retry: false });
    const answer = client.send('work', { key: 'drain-key-0000000001' });
    await until(() => s.handler.runner.activeCount === 1);
    const started = Date.now();
    await Promise.all([h.close({ graceMs: 1500 }), s.close({ graceMs: 500 })]);
    expect(Date.now() - started).toBeLessThan(500 + 1500);
    const r = await answer;
    expect('task' in r && r.task.status.state).toBe('TASK_STATE_WORKING');
  });

  it('lets a turn that finishes within the grace complete, and ends an open stream without an error event', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const s = server({
      agent: {
        execute: async (ctx: { working(t: string): Promise<void>; complete(t: string): Promise<void> }) => {
          await ctx.working('on it');
          await gate;
          await ctx.complete('done');
        },
      },
    });
    const blocking = s.fetch(send('a'));
    await until(() => s.handler.runner.activeCount === 1);
    const closing = s.close({ graceMs: 5000 });
    setTimeout(release, 100);
    const body = (await (await blocking).json()) as { result: { task: { status: { state: string } } } };
    expect(body.result.task.status.state).toBe('TASK_STATE_COMPLETED');
    await closing;
  });

  it('ends a subscription at the end of the grace, cleanly', async () => {
    const s = server();
    const first = (await (await s.fetch(send('b', { returnImmediately: true }))).json()) as {
      result: { task: { id: string } };
    };
    const sub = await s.fetch(rpcRequest('SubscribeToTask', { id: first.result.task.id }));
    const text = sub.text();
    await s.close({ graceMs: 200 });
    // Each frame is its `id:` line (ADR 0124) and its `data:` line.
    const frames = (await text).split('\n\n').filter((f) => /^(id: \d+\n)?data:/.test(f));
    expect(frames.length).toBeGreaterThan(0);
    expect(frames.some((f) => f.includes('"error"'))).toBe(false);
  });
});

async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}
