/**
 * Servers for the HTTP conformance tests: a built-in agent (or an inline one) behind `createA2AServer`, called
 * in-process through `server.fetch`, plus small JSON-RPC / REST call wrappers that also validate every success
 * body with our own zod schemas.
 */
import type { z } from 'zod';
import type { AgentCard } from '../../../src/protocol/agent-card.js';
import type { Task } from '../../../src/protocol/model.js';
import { SendMessageResponseSchema, TaskSchema } from '../../../src/protocol/schemas/index.js';
import type { AgentExecutor } from '../../../src/server/agent-executor.js';
import { createAgent, type AgentName, type DemoAgentOptions } from '../../../src/cli/agents/index.js';
import type { AgentCardInit } from '../../../src/server/card.js';
import { createA2AServer, type A2AServer } from '../../../src/server/index.js';
import type { HttpOptions } from '../../../src/server/http/http-options.js';
import type { A2AServerOptions } from '../../../src/server/options.js';
import { parseAs, restRequest, rpcJson, rpcRequest, type RpcEnvelope } from '../../helpers/http.js';

/** Extra server options a test may set. */
export type ServerExtras = Partial<Omit<A2AServerOptions, 'agent' | 'card'>> & { http?: HttpOptions };

/** A server for a built-in agent (`agentOptions` as `serve` would pass them). */
export function builtinServer(
  name: AgentName,
  extras: ServerExtras = {},
  delayMs?: number,
  agentOptions: DemoAgentOptions = {},
): A2AServer {
  const a = createAgent(name, delayMs !== undefined ? { ...agentOptions, delayMs } : agentOptions);
  return createA2AServer({
    agent: a.executor,
    card: a.card,
    ...(a.extendedCard ? { extendedCard: a.extendedCard } : {}),
    ...extras,
  });
}

/**
 * The TCK agent with its cards declaring push notifications, for the tests of the push-config operations (which
 * refuse on a card without them). The served agent keeps them off until delivery exists.
 */
export function pushTckServer(extras: ServerExtras = {}): A2AServer {
  return builtinServer('tck', extras, undefined, { pushNotifications: true });
}

/** A server for an inline agent. */
export function inlineServer(
  execute: AgentExecutor['execute'],
  card: Partial<AgentCardInit> = {},
  extras: ServerExtras = {},
): A2AServer {
  return createA2AServer({
    agent: { execute },
    card: { name: 'inline', description: 'inline test agent', capabilities: { streaming: true }, ...card },
    ...extras,
  });
}

/** Calls a JSON-RPC method in-process and returns the envelope (checks HTTP 200 + JSON content type). */
export async function rpc(
  server: A2AServer,
  method: string,
  params?: unknown,
  headers: Record<string, string> = {},
): Promise<RpcEnvelope> {
  const res = await server.fetch(rpcRequest(method, params, { headers }));
  const env = await rpcJson(res);
  if (res.status !== 200) throw new Error(`JSON-RPC ${method}: HTTP ${res.status} ${JSON.stringify(env)}`);
  return env;
}

/** Calls a JSON-RPC method and returns its result parsed with `schema` (fails on an error). */
export async function rpcOk<T>(
  server: A2AServer,
  method: string,
  params: unknown,
  schema: z.ZodType<T>,
  headers: Record<string, string> = {},
): Promise<T> {
  const env = await rpc(server, method, params, headers);
  if (env.error || !('result' in env)) throw new Error(`JSON-RPC ${method} failed: ${JSON.stringify(env)}`);
  return parseAs(schema, env.result, `${method} result`);
}

/** Sends a message over JSON-RPC and returns the task of the wrapped result. */
export async function sendTask(server: A2AServer, params: Record<string, unknown>): Promise<Task> {
  const r = await rpcOk(server, 'SendMessage', params, SendMessageResponseSchema);
  if (!('task' in r)) throw new Error(`expected a task result, got ${JSON.stringify(r)}`);
  return r.task;
}

/** GetTask over JSON-RPC. */
export function getTask(server: A2AServer, id: string, extra: Record<string, unknown> = {}): Promise<Task> {
  return rpcOk(server, 'GetTask', { id, ...extra }, TaskSchema);
}

/** A REST call in-process; returns the response. */
export function rest(
  server: A2AServer,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return server.fetch(restRequest(method, path, body, { headers }));
}

/** A REST call that must succeed with `status`; the JSON body parsed with `schema`. */
export async function restOk<T>(
  server: A2AServer,
  method: string,
  path: string,
  body: unknown,
  schema: z.ZodType<T>,
  status = 200,
): Promise<{ value: T; raw: unknown; res: Response }> {
  const res = await rest(server, method, path, body);
  const text = await res.text();
  if (res.status !== status)
    throw new Error(`${method} ${path}: expected ${status}, got ${res.status}: ${text}`);
  const raw = JSON.parse(text) as unknown;
  return { value: parseAs(schema, raw, `${method} ${path}`), raw, res };
}

/** The served public card. */
export async function fetchCard(server: A2AServer): Promise<AgentCard> {
  const res = await server.fetch(new Request('http://a2a.test/.well-known/agent-card.json'));
  return (await res.json()) as AgentCard;
}

/** A deferred promise, to hold an inline agent at a point the test controls. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}
