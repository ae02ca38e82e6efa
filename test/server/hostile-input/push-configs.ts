/** Push-config calls of either binding, for the cap and paging tests. */
import type { TaskPushNotificationConfig } from '../../../src/protocol/requests.js';
import type { Binding, Endpoint } from '../duplicate-safety/helpers.js';
import { readCall, type CallAnswer } from './wire.js';

let rpcId = 0;

function rpc(ep: Endpoint, method: string, params: unknown): Request {
  return new Request(`${ep.base}/`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
  });
}

/** CreateTaskPushNotificationConfig. */
export async function createConfig(
  ep: Endpoint,
  binding: Binding,
  taskId: string,
  config: Omit<TaskPushNotificationConfig, 'taskId'>,
): Promise<CallAnswer> {
  const req =
    binding === 'jsonrpc'
      ? rpc(ep, 'CreateTaskPushNotificationConfig', { ...config, taskId })
      : new Request(`${ep.base}/tasks/${encodeURIComponent(taskId)}/pushNotificationConfigs`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/a2a+json' },
          body: JSON.stringify(config),
        });
  return readCall(binding, await ep.fetch(req));
}

/** DeleteTaskPushNotificationConfig. */
export async function deleteConfig(
  ep: Endpoint,
  binding: Binding,
  taskId: string,
  id: string,
): Promise<CallAnswer> {
  const req =
    binding === 'jsonrpc'
      ? rpc(ep, 'DeleteTaskPushNotificationConfig', { taskId, id })
      : new Request(
          `${ep.base}/tasks/${encodeURIComponent(taskId)}/pushNotificationConfigs/${encodeURIComponent(id)}`,
          {
            method: 'DELETE',
          },
        );
  return readCall(binding, await ep.fetch(req));
}

/** One page of ListTaskPushNotificationConfigs. */
export interface ConfigPage {
  readonly configs: TaskPushNotificationConfig[];
  readonly nextPageToken: string;
}

/** ListTaskPushNotificationConfigs with optional paging. */
export async function listConfigs(
  ep: Endpoint,
  binding: Binding,
  taskId: string,
  paging: { pageSize?: number; pageToken?: string } = {},
): Promise<CallAnswer> {
  let req: Request;
  if (binding === 'jsonrpc') req = rpc(ep, 'ListTaskPushNotificationConfigs', { taskId, ...paging });
  else {
    const q = new URLSearchParams();
    if (paging.pageSize !== undefined) q.set('pageSize', String(paging.pageSize));
    if (paging.pageToken !== undefined) q.set('pageToken', paging.pageToken);
    const qs = q.size > 0 ? `?${q.toString()}` : '';
    req = new Request(`${ep.base}/tasks/${encodeURIComponent(taskId)}/pushNotificationConfigs${qs}`);
  }
  return readCall(binding, await ep.fetch(req));
}

/** The page of a successful list (throws with the answer otherwise). */
export function pageOf(a: CallAnswer): ConfigPage {
  if (!a.ok) throw new Error(`expected a page, got ${JSON.stringify(a.error)}`);
  const r = a.result as { configs?: TaskPushNotificationConfig[]; nextPageToken?: string };
  return { configs: r.configs ?? [], nextPageToken: r.nextPageToken ?? '' };
}

/** Every page, following nextPageToken; the ids in order and the number of pages. */
export async function allPages(
  ep: Endpoint,
  binding: Binding,
  taskId: string,
  pageSize: number,
): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let pageToken: string | undefined;
  for (let pages = 1; pages < 1000; pages++) {
    const page = pageOf(
      await listConfigs(ep, binding, taskId, { pageSize, ...(pageToken ? { pageToken } : {}) }),
    );
    ids.push(...page.configs.map((c) => c.id ?? ''));
    if (page.nextPageToken === '') return { ids, pages };
    pageToken = page.nextPageToken;
  }
  throw new Error('paging did not end');
}
