/**
 * The calls of the unstorable-text tests: one A2A operation with its params, written as JSON-RPC or as the REST
 * binding carries it (tenant as the path prefix, ids as path variables, filters as query parameters, the rest as
 * the body), and the field a refusal must name. A lone surrogate cannot travel in a URL (percent-encoding is of
 * UTF-8, which has no form for it), so those cases exist only where the binding puts the field in a JSON body.
 */
import type { Binding, Endpoint } from '../duplicate-safety/helpers.js';

/** U+0000 inside an otherwise ordinary id. */
export const NUL = 'id-\u0000-x';
/** A high surrogate with no low one after it. */
export const LONE_HIGH = 'id-\ud800-x';
/** A low surrogate with no high one before it. */
export const LONE_LOW = 'id-\udc00-x';

/** Where the REST binding puts one request field. */
type RestPlace = 'path' | 'query' | 'body';

/** One call whose `field` holds `bad` text. */
export interface UnstorableCall {
  readonly label: string;
  readonly method: string;
  /** JSON-RPC params (REST: the same fields, placed per `restPlaces`). */
  readonly params: Record<string, unknown>;
  /** The field path the refusal names (`fields` metadata). */
  readonly field: string;
  /** Where REST carries the top-level fields that are not in the body. */
  readonly restPlaces?: Readonly<Record<string, RestPlace>>;
}

let rpcId = 0;

function restPath(method: string, p: Record<string, unknown>): { verb: string; path: string } {
  const seg = (v: unknown) => encodeURIComponent(String(v));
  const prefix = typeof p.tenant === 'string' ? `/${seg(p.tenant)}` : '';
  switch (method) {
    case 'SendMessage':
      return { verb: 'POST', path: `${prefix}/message:send` };
    case 'GetTask':
      return { verb: 'GET', path: `${prefix}/tasks/${seg(p.id)}` };
    case 'CancelTask':
      return { verb: 'POST', path: `${prefix}/tasks/${seg(p.id)}:cancel` };
    case 'SubscribeToTask':
      return { verb: 'POST', path: `${prefix}/tasks/${seg(p.id)}:subscribe` };
    case 'ListTasks':
      return { verb: 'GET', path: `${prefix}/tasks` };
    case 'CreateTaskPushNotificationConfig':
      return { verb: 'POST', path: `${prefix}/tasks/${seg(p.taskId)}/pushNotificationConfigs` };
    case 'ListTaskPushNotificationConfigs':
      return { verb: 'GET', path: `${prefix}/tasks/${seg(p.taskId)}/pushNotificationConfigs` };
    case 'GetTaskPushNotificationConfig':
      return { verb: 'GET', path: `${prefix}/tasks/${seg(p.taskId)}/pushNotificationConfigs/${seg(p.id)}` };
    case 'DeleteTaskPushNotificationConfig':
      return {
        verb: 'DELETE',
        path: `${prefix}/tasks/${seg(p.taskId)}/pushNotificationConfigs/${seg(p.id)}`,
      };
  }
  throw new Error(`no REST route in this test for ${method}`);
}

/** The fields each REST route takes from its path (the rest go in the query on GET/DELETE, else the body). */
const PATH_FIELDS: Record<string, readonly string[]> = {
  GetTask: ['tenant', 'id'],
  CancelTask: ['tenant', 'id'],
  SubscribeToTask: ['tenant', 'id'],
  ListTasks: ['tenant'],
  SendMessage: ['tenant'],
  CreateTaskPushNotificationConfig: ['tenant', 'taskId'],
  ListTaskPushNotificationConfigs: ['tenant', 'taskId'],
  GetTaskPushNotificationConfig: ['tenant', 'taskId', 'id'],
  DeleteTaskPushNotificationConfig: ['tenant', 'taskId', 'id'],
};

/** REST routes that carry no body: everything but their path sits in the query. */
const BODYLESS = new Set([
  'GetTask',
  'ListTasks',
  'ListTaskPushNotificationConfigs',
  'GetTaskPushNotificationConfig',
  'DeleteTaskPushNotificationConfig',
]);

/** Whether REST can carry this call: a lone surrogate has no URL form, so it must sit in the body. */
export function restCarries(call: UnstorableCall, bad: string): boolean {
  if (bad === NUL) return true;
  const top = call.field.split(/[.[]/)[0]!;
  return !BODYLESS.has(call.method) && !(PATH_FIELDS[call.method] ?? []).includes(top);
}

/** The HTTP request of `call` on `binding`. */
export function requestOf(ep: Endpoint, binding: Binding, call: UnstorableCall): Request {
  if (binding === 'jsonrpc') {
    return new Request(`${ep.base}/`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method: call.method, params: call.params }),
    });
  }
  const { verb, path } = restPath(call.method, call.params);
  const inPath = new Set(PATH_FIELDS[call.method] ?? []);
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(call.params)) if (!inPath.has(k)) rest[k] = v;
  if (verb === 'GET' || verb === 'DELETE') {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(rest)) query.set(k, String(v));
    const qs = query.size > 0 ? `?${query.toString()}` : '';
    return new Request(`${ep.base}${path}${qs}`, { method: verb });
  }
  return new Request(`${ep.base}${path}`, {
    method: verb,
    headers: { 'Content-Type': 'application/a2a+json' },
    body: JSON.stringify(rest),
  });
}

/** A ListTasks page token as this server writes them, around a position holding `id`. */
export function pageTokenAround(id: string): string {
  return Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000Z', id]), 'utf8').toString('base64url');
}
