/**
 * Servers for the authentication tests: a real a2a-once server on a loopback port behind a ready authenticator,
 * a store that counts what it is asked (a real store underneath), an agent that counts its runs per principal,
 * and calls of every operation over either binding, as raw HTTP so status, headers and bodies are all visible.
 */
import type { A2AMethod } from '../../../src/protocol/constants.js';
import type { JsonObject } from '../../../src/protocol/model.js';
import { restRoute } from '../../../src/client/transport/rest-routes.js';
import type { AgentExecutor } from '../../../src/server/agent-executor.js';
import { createA2AServer, type A2AServer } from '../../../src/server/index.js';
import type { HttpOptions } from '../../../src/server/http/http-options.js';
import type { ServerLogger } from '../../../src/server/observability/logger.js';
import { serveNode, type NodeServerHandle } from '../../../src/server/node/index.js';
import type { A2AServerOptions } from '../../../src/server/options.js';
import { MemoryTaskStore } from '../../../src/store/memory/memory-task-store.js';
import type { TaskStore } from '../../../src/store/task-store.js';
import { closeNode } from '../../helpers/close-node.js';

/** The store methods that write. */
export const WRITE_METHODS = new Set([
  'createTask',
  'claimKey',
  'commit',
  'releaseClaim',
  'releaseKey',
  'putPushConfig',
  'deletePushConfig',
  'recordPushDelivery',
  'renewLease',
  'recordStep',
  'recordParentRenewal',
]);

/** A store that counts calls per method, every call passed to the real store underneath. */
export function countingStore<S extends TaskStore>(
  inner: S,
): { store: S; calls: Map<string, number>; log: { method: string; owner: string | undefined }[] } {
  const calls = new Map<string, number>();
  const log: { method: string; owner: string | undefined }[] = [];
  const store = new Proxy(inner, {
    get(target, prop, receiver) {
      const v: unknown = Reflect.get(target, prop, receiver);
      if (typeof v !== 'function' || typeof prop !== 'string') return v;
      return (...args: unknown[]) => {
        calls.set(prop, (calls.get(prop) ?? 0) + 1);
        const scope = args[0] as { owner?: unknown } | undefined;
        log.push({ method: prop, owner: typeof scope?.owner === 'string' ? scope.owner : undefined });
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store, calls, log };
}

/** How many writes a call map holds. */
export function writesIn(calls: Map<string, number>): number {
  let n = 0;
  for (const [name, count] of calls) if (WRITE_METHODS.has(name)) n += count;
  return n;
}

/** An agent whose runs are counted per principal: `wait` asks for input (the task stays open), else completes. */
export function countedAgent(): { agent: AgentExecutor; runs: Map<string, number>; total: () => number } {
  const runs = new Map<string, number>();
  return {
    runs,
    total: () => [...runs.values()].reduce((a, b) => a + b, 0),
    agent: {
      execute: async (ctx) => {
        const who = ctx.principal ?? '';
        runs.set(who, (runs.get(who) ?? 0) + 1);
        if (ctx.userText.startsWith('wait')) await ctx.requireInput('more, please');
        else await ctx.complete(`done for ${who}`);
      },
    },
  };
}

/** A running server on 127.0.0.1. */
export interface AuthServer {
  readonly url: string;
  readonly server: A2AServer;
  readonly handle: NodeServerHandle;
  close(): Promise<void>;
}

/** Starts a server with `http.authenticate` = `authenticate` on a loopback port. */
export async function startAuthServer(
  http: HttpOptions,
  options: Partial<A2AServerOptions> & { logger?: ServerLogger } = {},
): Promise<AuthServer> {
  const server = createA2AServer({
    agent: options.agent ?? countedAgent().agent,
    card: options.card ?? {
      name: 'auth-test',
      description: 'authentication tests',
      capabilities: { streaming: true, pushNotifications: true },
    },
    store: options.store ?? new MemoryTaskStore(),
    retention: false,
    push: { allowPrivateTargets: true },
    ...options,
    http,
  });
  const handle = await serveNode(server.fetch, { host: '127.0.0.1', port: 0 });
  return {
    url: handle.url,
    server,
    handle,
    close: async () => {
      await closeNode(handle);
      await server.close();
    },
  };
}

/** The binding a call goes through. */
export type Binding = 'jsonrpc' | 'rest';

/** What came back. */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The JSON body (the JSON-RPC envelope, a REST body), or undefined for an empty or SSE body. */
  readonly json: unknown;
}

/**
 * Calls `method` with `params` over `binding`. Streams are read until `streamMs` passes (default 300 ms), then
 * cut, so a call that would follow a live task still answers.
 */
export async function call(
  base: string,
  binding: Binding,
  method: A2AMethod,
  params: JsonObject,
  headers: Record<string, string> = {},
  streamMs = 300,
): Promise<Answer> {
  const ctl = new AbortController();
  let init: { url: string; method: string; body?: string; headers: Record<string, string> };
  const common = { 'A2A-Version': '1.0', ...headers };
  if (binding === 'jsonrpc') {
    init = {
      url: `${base}/`,
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...common },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }),
    };
  } else {
    const { tenant, ...rest } = params as { tenant?: string } & JsonObject;
    const r = restRoute(method, rest, tenant);
    init = {
      url: `${base}${r.path}`,
      method: r.method,
      headers: r.body ? { 'Content-Type': 'application/a2a+json', ...common } : common,
      ...(r.body ? { body: JSON.stringify(r.body) } : {}),
    };
  }
  const res = await fetch(init.url, { ...init, signal: ctl.signal });
  let text = '';
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    const timer = setTimeout(() => ctl.abort(), streamMs);
    try {
      text = await res.text();
    } catch {
      // Cut on purpose: what arrived before is enough.
    } finally {
      clearTimeout(timer);
    }
  } else {
    text = await res.text();
  }
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** The ErrorInfo reason of an error answer on either binding, or undefined for a success. */
export function reasonOf(a: Answer): string | undefined {
  const j = a.json as { error?: { data?: unknown; details?: unknown } } | undefined;
  const details = (j?.error?.data ?? j?.error?.details) as { reason?: string }[] | undefined;
  if (details?.[0]?.reason) return details[0].reason;
  // An SSE answer: the first frame's error, if any.
  const m = /"reason":"([A-Z_]+)"/.exec(a.text);
  return j === undefined && m ? m[1] : undefined;
}

/** An answer with the parts that differ per request (ids of the JSON-RPC envelope) left out. */
export function comparable(a: Answer): string {
  const j = a.json as Record<string, unknown> | undefined;
  const body = j && 'jsonrpc' in j ? { ...j, id: null } : j;
  return JSON.stringify({ status: a.status, body: body ?? a.text });
}

/** A user message; a key when given, as the idempotency extension carries it. */
export function message(text: string, extra: JsonObject = {}, key?: string): JsonObject {
  return {
    messageId: `m-${Math.random().toString(36).slice(2)}`,
    role: 'ROLE_USER',
    parts: [{ text }],
    ...(key ? { metadata: { 'a2a-rust.com/idempotency-key': key } } : {}),
    ...extra,
  };
}

/** `Authorization: Bearer <token>`. */
export function bearer(token: string): Record<string, string> {
  return { Authorization: `Bearer ${token}` };
}
