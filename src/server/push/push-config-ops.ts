/**
 * The four push-config operations (A2A §3.1.7–3.1.10). Configs are stored per task, at most a capped number of
 * them (`push-config-cap.ts`), and listed in pages (`push-config-paging.ts`); the URL's target is checked by the
 * SSRF guard (`webhook-url-guard.ts`), and delivery is `push-dispatcher.ts` (ADR 0045).
 */
import { randomUUID } from 'node:crypto';
import {
  InvalidParamsError,
  PushNotificationNotSupportedError,
  TaskNotFoundError,
} from '../../protocol/errors.js';
import type { AgentCard } from '../../protocol/agent-card.js';
import type {
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  TaskPushNotificationConfig,
  TaskPushNotificationConfigRef,
} from '../../protocol/requests.js';
import type { Scope } from '../../store/scope.js';
import type { TaskStore } from '../../store/task-store.js';
import { DEFAULT_MAX_PUSH_CONFIGS_PER_TASK, putWithinCap } from './push-config-cap.js';
import { configPage } from './push-config-paging.js';

/** Refuses push operations when the card does not declare the capability. */
export function assertPushSupported(card: AgentCard): void {
  if (card.capabilities.pushNotifications !== true) throw new PushNotificationNotSupportedError();
}

function hasControlCharacter(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}

/** Checks a webhook URL's form (http or https, absolute) and gives the config an id. */
export function preparePushConfig(
  config: TaskPushNotificationConfig,
  taskId: string,
): TaskPushNotificationConfig {
  let url: URL;
  try {
    url = new URL(config.url);
  } catch {
    throw new InvalidParamsError('Invalid parameters: url is not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidParamsError('Invalid parameters: url must be http or https');
  }
  // These travel as header values: a control character would split or break the request (header injection).
  const a = config.authentication;
  for (const [name, v] of [
    ['authentication.scheme', a?.scheme],
    ['authentication.credentials', a?.credentials],
    ['token', config.token],
  ] as const) {
    if (v !== undefined && hasControlCharacter(v)) {
      throw new InvalidParamsError({
        message: `Invalid parameters: ${name} must not contain control characters`,
        metadata: { fields: name },
      });
    }
  }
  if (a !== undefined && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(a.scheme)) {
    throw new InvalidParamsError({
      message: 'Invalid parameters: authentication.scheme must be an HTTP auth scheme token such as Bearer',
      metadata: { fields: 'authentication.scheme' },
    });
  }
  const { tenant: _tenant, ...rest } = config;
  return { ...rest, id: config.id || randomUUID(), taskId };
}

async function assertTaskVisible(store: TaskStore, scope: Scope, taskId: string): Promise<void> {
  const rec = await store.getTask(scope, taskId);
  if (!rec || rec.kind !== 'task') throw new TaskNotFoundError();
}

/**
 * CreateTaskPushNotificationConfig: creating again with the same id replaces the config. A task holds at most
 * `maxPerTask` configs; one more is refused with `PushConfigLimitError` (-32602 / 400).
 */
export async function createPushConfig(
  store: TaskStore,
  scope: Scope,
  params: TaskPushNotificationConfig,
  maxPerTask: number = DEFAULT_MAX_PUSH_CONFIGS_PER_TASK,
  checkUrl: (url: string) => Promise<void> = () => Promise.resolve(),
): Promise<TaskPushNotificationConfig> {
  const taskId = params.taskId;
  if (!taskId) throw new InvalidParamsError('Invalid parameters: taskId is required');
  await assertTaskVisible(store, scope, taskId);
  const config = preparePushConfig(params, taskId);
  await checkUrl(config.url);
  await putWithinCap(store, scope, taskId, config, maxPerTask);
  return config;
}

/** GetTaskPushNotificationConfig: a missing config is TaskNotFound (A2A §3.1.8). */
export async function getPushConfig(
  store: TaskStore,
  scope: Scope,
  params: TaskPushNotificationConfigRef,
): Promise<TaskPushNotificationConfig> {
  await assertTaskVisible(store, scope, params.taskId);
  const config = await store.getPushConfig(scope, params.taskId, params.id);
  if (!config) throw new TaskNotFoundError('Push notification config not found');
  return config;
}

/**
 * ListTaskPushNotificationConfigs: the task's configs in creation order, a page at a time (`pageSize`, 0 or
 * unset for the server's default; `nextPageToken` is `""` on the last page).
 */
export async function listPushConfigs(
  store: TaskStore,
  scope: Scope,
  params: ListTaskPushNotificationConfigsRequest,
): Promise<ListTaskPushNotificationConfigsResponse> {
  await assertTaskVisible(store, scope, params.taskId);
  const all = await store.listPushConfigs(scope, params.taskId);
  return configPage(all, params.taskId, params.pageSize, params.pageToken);
}

/** DeleteTaskPushNotificationConfig: idempotent (A2A §3.1.10). */
export async function deletePushConfig(
  store: TaskStore,
  scope: Scope,
  params: TaskPushNotificationConfigRef,
): Promise<void> {
  await assertTaskVisible(store, scope, params.taskId);
  await store.deletePushConfig(scope, params.taskId, params.id);
}
