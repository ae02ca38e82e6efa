/**
 * The HTTP+JSON routes of the eleven operations (A2A v1.0): verb, path (with the `/{tenant}` prefix
 * when the interface has a tenant, A2A v1.0), camelCase query parameters for GET and DELETE, and the body for
 * POST (the request message, less the fields that moved into the path).
 */
import type { JsonObject } from '../../protocol/model.js';
import type { UnaryOperation, StreamOperation } from './transport.js';

/** A resolved REST request. */
export interface RestRoute {
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** Path and query, starting with `/`. */
  readonly path: string;
  readonly body?: JsonObject;
}

function seg(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '') throw new TypeError(`${name} is required`);
  return encodeURIComponent(value);
}

/** GET/DELETE query from scalar params: camelCase names, enums by name, booleans `true`/`false` (A2A v1.0). */
function query(params: JsonObject, omit: readonly string[]): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (omit.includes(k) || v === undefined || v === null) continue;
    const items: unknown[] = Array.isArray(v) ? (v as unknown[]) : [v];
    for (const item of items) {
      // Nested objects are not allowed in a query string (A2A v1.0); scalars only.
      if (typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean')
        q.append(k, String(item));
    }
  }
  const s = q.toString();
  return s === '' ? '' : `?${s}`;
}

function without(params: JsonObject, omit: readonly string[]): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(params)) if (!omit.includes(k)) out[k] = v;
  return out;
}

/** The route of an operation, without the tenant prefix. */
function baseRoute(op: UnaryOperation | StreamOperation, p: JsonObject): RestRoute {
  switch (op) {
    case 'SendMessage':
      return { method: 'POST', path: '/message:send', body: p };
    case 'SendStreamingMessage':
      return { method: 'POST', path: '/message:stream', body: p };
    case 'GetTask':
      return { method: 'GET', path: `/tasks/${seg(p.id, 'id')}${query(p, ['id'])}` };
    case 'ListTasks':
      return { method: 'GET', path: `/tasks${query(p, [])}` };
    case 'CancelTask':
      return { method: 'POST', path: `/tasks/${seg(p.id, 'id')}:cancel`, body: without(p, ['id']) };
    case 'SubscribeToTask':
      // The spec's verb; the proto says GET, and servers accept both (A2A v1.0).
      return { method: 'POST', path: `/tasks/${seg(p.id, 'id')}:subscribe` };
    case 'CreateTaskPushNotificationConfig':
      return {
        method: 'POST',
        path: `/tasks/${seg(p.taskId, 'taskId')}/pushNotificationConfigs`,
        body: p,
      };
    case 'GetTaskPushNotificationConfig':
      return {
        method: 'GET',
        path: `/tasks/${seg(p.taskId, 'taskId')}/pushNotificationConfigs/${seg(p.id, 'id')}`,
      };
    case 'ListTaskPushNotificationConfigs':
      return {
        method: 'GET',
        path: `/tasks/${seg(p.taskId, 'taskId')}/pushNotificationConfigs${query(p, ['taskId'])}`,
      };
    case 'DeleteTaskPushNotificationConfig':
      return {
        method: 'DELETE',
        path: `/tasks/${seg(p.taskId, 'taskId')}/pushNotificationConfigs/${seg(p.id, 'id')}`,
      };
    case 'GetExtendedAgentCard':
      return { method: 'GET', path: '/extendedAgentCard' };
  }
}

/** The route of an operation for an interface with `tenant` (or none). `params` never carries `tenant`. */
export function restRoute(
  op: UnaryOperation | StreamOperation,
  params: JsonObject,
  tenant?: string,
): RestRoute {
  const route = baseRoute(op, params);
  if (tenant === undefined || tenant === '') return route;
  return { ...route, path: `/${encodeURIComponent(tenant)}${route.path}` };
}
