/**
 * Route matching of the HTTP+JSON binding (A2A v1.0). Every route exists bare and under a `/{tenant}`
 * prefix; a first segment that is one of the binding's own words is a route, anything else is a tenant. (A
 * tenant literally named `tasks`, `message:send`, `message:stream` or `extendedAgentCard` is therefore not
 * addressable by path; use JSON-RPC `params.tenant` for it.)
 */
import type { A2AMethod } from '../../../protocol/constants.js';

/** A matched route: the method, the tenant, and the path variables. */
export interface RestMatch {
  readonly method: A2AMethod;
  readonly tenant: string;
  readonly vars: { readonly id?: string; readonly taskId?: string };
}

/** The reason a path did not match: unknown path, or known path with another HTTP verb. */
export type RestMiss =
  { readonly miss: 'not-found' } | { readonly miss: 'method-not-allowed'; readonly allow: string };

const ROUTE_WORDS = new Set(['message:send', 'message:stream', 'tasks', 'extendedAgentCard']);

function match(
  verb: string,
  segs: readonly string[],
): RestMiss | { method: A2AMethod; id?: string; taskId?: string } {
  const [a, b, c, d, ...rest] = segs;
  if (rest.length > 0) return { miss: 'not-found' };
  const only = (allowed: string, m: A2AMethod, vars: { id?: string; taskId?: string } = {}) =>
    verb === allowed ? { method: m, ...vars } : ({ miss: 'method-not-allowed', allow: allowed } as const);
  if (segs.length === 1 && a === 'message:send') return only('POST', 'SendMessage');
  if (segs.length === 1 && a === 'message:stream') return only('POST', 'SendStreamingMessage');
  if (segs.length === 1 && a === 'extendedAgentCard') return only('GET', 'GetExtendedAgentCard');
  if (a !== 'tasks') return { miss: 'not-found' };
  if (segs.length === 1) return only('GET', 'ListTasks');
  if (b === undefined || b === '') return { miss: 'not-found' };
  if (segs.length === 2) {
    const colon = b.lastIndexOf(':');
    if (colon === -1) return only('GET', 'GetTask', { id: b });
    const id = b.slice(0, colon);
    const verbName = b.slice(colon + 1);
    if (id === '') return { miss: 'not-found' };
    if (verbName === 'cancel') return only('POST', 'CancelTask', { id });
    if (verbName === 'subscribe') {
      // The proto says GET, the spec prose and the TCK say POST: accept both (A2A v1.0).
      return verb === 'GET' || verb === 'POST'
        ? { method: 'SubscribeToTask', id }
        : { miss: 'method-not-allowed', allow: 'GET, POST' };
    }
    return { miss: 'not-found' };
  }
  if (c !== 'pushNotificationConfigs') return { miss: 'not-found' };
  if (segs.length === 3) {
    if (verb === 'POST') return { method: 'CreateTaskPushNotificationConfig', taskId: b };
    if (verb === 'GET') return { method: 'ListTaskPushNotificationConfigs', taskId: b };
    return { miss: 'method-not-allowed', allow: 'GET, POST' };
  }
  if (d === undefined || d === '') return { miss: 'not-found' };
  if (verb === 'GET') return { method: 'GetTaskPushNotificationConfig', taskId: b, id: d };
  if (verb === 'DELETE') return { method: 'DeleteTaskPushNotificationConfig', taskId: b, id: d };
  return { miss: 'method-not-allowed', allow: 'GET, DELETE' };
}

/** Matches a request path (already stripped of any base path) and verb. */
export function matchRestRoute(verb: string, pathname: string): RestMatch | RestMiss {
  let segs: string[];
  try {
    segs = pathname
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s));
  } catch {
    return { miss: 'not-found' };
  }
  let tenant = '';
  if (segs.length > 1 && !ROUTE_WORDS.has(segs[0]!)) {
    tenant = segs[0]!;
    segs = segs.slice(1);
  }
  const m = match(verb, segs);
  if ('miss' in m) return m;
  const { method, ...vars } = m;
  return { method, tenant, vars };
}
