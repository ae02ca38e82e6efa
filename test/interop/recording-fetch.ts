/**
 * A `fetch` that records every exchange the official client makes, and a checker that parses every recorded
 * response body (unary JSON, JSON-RPC envelopes, SSE events) with our own zod schemas, choosing the schema from
 * the operation the request named (JSON-RPC `method`, or the REST route).
 */
import type { z } from 'zod';
import type { A2AMethod } from '../../src/protocol/constants.js';
import { safeParseWith } from '../../src/protocol/parse.js';
import {
  AgentCardSchema,
  ListTaskPushNotificationConfigsResponseSchema,
  ListTasksResponseSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskPushNotificationConfigSchema,
  TaskSchema,
} from '../../src/protocol/schemas/index.js';
import { matchRestRoute } from '../../src/server/http/rest/rest-routes.js';
import { parseSseText } from '../helpers/http.js';

/** One request/response pair as seen on the wire. */
export interface Exchange {
  readonly method: string;
  readonly url: string;
  readonly requestBody: string;
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** A fetch that records exchanges (the response body is read from a clone, so the client still streams). */
export function recordingFetch(log: Exchange[]): typeof fetch {
  return async (input, init) => {
    const req = new Request(input, init);
    const requestBody = req.body ? await req.clone().text() : '';
    const res = await fetch(req);
    const copy = res.clone();
    const entry = { method: req.method, url: req.url, requestBody, status: res.status };
    // Record once the body is complete; `settled` lets the checker wait for streams the client closed early.
    pending.add(
      copy
        .text()
        .catch(() => '')
        .then((body) => {
          log.push({ ...entry, contentType: res.headers.get('content-type') ?? '', body });
        }),
    );
    return res;
  };
}

const pending = new Set<Promise<void>>();

/** Waits until every recorded body has been read. */
export async function settled(): Promise<void> {
  await Promise.allSettled([...pending]);
  pending.clear();
}

const RESULT_SCHEMAS: Partial<Record<A2AMethod, z.ZodType>> = {
  SendMessage: SendMessageResponseSchema,
  GetTask: TaskSchema,
  CancelTask: TaskSchema,
  ListTasks: ListTasksResponseSchema,
  CreateTaskPushNotificationConfig: TaskPushNotificationConfigSchema,
  GetTaskPushNotificationConfig: TaskPushNotificationConfigSchema,
  ListTaskPushNotificationConfigs: ListTaskPushNotificationConfigsResponseSchema,
  GetExtendedAgentCard: AgentCardSchema,
};

function operationOf(ex: Exchange): { op: A2AMethod | 'card'; rpc: boolean } | undefined {
  const u = new URL(ex.url);
  if (u.pathname === '/.well-known/agent-card.json') return { op: 'card', rpc: false };
  if (ex.method === 'POST' && u.pathname === '/') {
    const m = (JSON.parse(ex.requestBody) as { method: A2AMethod }).method;
    return { op: m, rpc: true };
  }
  const r = matchRestRoute(ex.method, u.pathname);
  return 'miss' in r ? undefined : { op: r.method, rpc: false };
}

/** Problems found in `log` (empty when every body parses with our schemas). */
export function checkExchanges(log: readonly Exchange[]): string[] {
  const problems: string[] = [];
  const check = (schema: z.ZodType, raw: unknown, what: string) => {
    const r = safeParseWith(schema, raw, what);
    if (!r.success) problems.push(r.message);
  };
  for (const ex of log) {
    const where = `${ex.method} ${new URL(ex.url).pathname}`;
    const op = operationOf(ex);
    if (!op) {
      problems.push(`${where}: unknown operation`);
      continue;
    }
    if (ex.status === 204 || ex.status === 304) continue;
    if (ex.contentType.startsWith('text/event-stream')) {
      for (const f of parseSseText(ex.body)) {
        const payload = op.rpc ? (f.data as { result?: unknown; error?: unknown }) : f.data;
        if (op.rpc) {
          const env = payload as { jsonrpc?: unknown; result?: unknown; error?: unknown };
          if (env.jsonrpc !== '2.0') problems.push(`${where}: SSE event is not a JSON-RPC response`);
          if (env.error === undefined) check(StreamResponseSchema, env.result, `${where} stream event`);
        } else if (f.event !== 'error') check(StreamResponseSchema, payload, `${where} stream event`);
      }
      continue;
    }
    let body: unknown;
    try {
      body = JSON.parse(ex.body);
    } catch {
      problems.push(`${where}: body is not JSON: ${ex.body.slice(0, 100)}`);
      continue;
    }
    if (op.op === 'card') {
      check(AgentCardSchema, body, `${where} agent card`);
      continue;
    }
    if (op.rpc) {
      const env = body as { jsonrpc?: unknown; result?: unknown; error?: { code?: unknown; data?: unknown } };
      if (env.jsonrpc !== '2.0') problems.push(`${where}: not a JSON-RPC response`);
      if (env.error !== undefined) {
        if (typeof env.error.code !== 'number' || !Array.isArray(env.error.data)) {
          problems.push(`${where}: malformed JSON-RPC error ${ex.body}`);
        }
        continue;
      }
      const schema = RESULT_SCHEMAS[op.op];
      if (schema) check(schema, env.result, `${where} ${op.op} result`);
      continue;
    }
    if (ex.status >= 400) {
      const e = (body as { error?: { code?: unknown; status?: unknown; details?: unknown } }).error;
      if (!e || e.code !== ex.status || typeof e.status !== 'string' || !Array.isArray(e.details)) {
        problems.push(`${where}: malformed google.rpc.Status ${ex.body}`);
      }
      continue;
    }
    const schema = RESULT_SCHEMAS[op.op];
    if (schema) check(schema, body, `${where} ${op.op} result`);
  }
  return problems;
}
