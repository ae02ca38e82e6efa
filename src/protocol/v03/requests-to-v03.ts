/**
 * v1.0 request params into v0.3 request params, for a client talking to a v0.3 agent (ADR 0103): the inverse of
 * `to-v1.ts`, which reads them on the server. Metadata is copied as sent, so the idempotency key
 * (`message.metadata["a2a-rust.com/idempotency-key"]`) reaches a v0.3 agent exactly as it reaches a v1.0 one.
 * `blocking` is always written (`!returnImmediately`): v0.3 servers disagree on its default.
 */
import type {
  CancelTaskRequest,
  GetTaskRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
  TaskPushNotificationConfigRef,
} from '../requests.js';
import type { V03MessageSendParams, V03TaskPushConfig } from './schemas.js';
import { messageToV03, pushConfigToV03 } from './to-v03.js';

/** `SendMessage`/`SendStreamingMessage` params as `message/send`/`message/stream` params. */
export function sendParamsToV03(p: SendMessageRequest): V03MessageSendParams {
  const c = p.configuration;
  const configuration: NonNullable<V03MessageSendParams['configuration']> = {
    blocking: c?.returnImmediately !== true,
  };
  if (c?.acceptedOutputModes !== undefined) configuration.acceptedOutputModes = [...c.acceptedOutputModes];
  if (c?.historyLength !== undefined) configuration.historyLength = c.historyLength;
  if (c?.taskPushNotificationConfig !== undefined)
    configuration.pushNotificationConfig = pushConfigToV03(
      c.taskPushNotificationConfig,
    ).pushNotificationConfig;
  const out: V03MessageSendParams = { message: messageToV03(p.message), configuration };
  if (p.metadata !== undefined) out.metadata = { ...p.metadata };
  return out;
}

/** `GetTask` params as `tasks/get` params. */
export function getTaskParamsToV03(p: GetTaskRequest): { id: string; historyLength?: number } {
  return p.historyLength === undefined ? { id: p.id } : { id: p.id, historyLength: p.historyLength };
}

/** `CancelTask` params as `tasks/cancel` params. */
export function cancelParamsToV03(p: CancelTaskRequest): { id: string; metadata?: Record<string, unknown> } {
  return p.metadata === undefined ? { id: p.id } : { id: p.id, metadata: { ...p.metadata } };
}

/** `SubscribeToTask` params as `tasks/resubscribe` params. */
export function resubscribeParamsToV03(p: SubscribeToTaskRequest): { id: string } {
  return { id: p.id };
}

/** `CreateTaskPushNotificationConfig` params as `tasks/pushNotificationConfig/set` params. */
export function setPushConfigParamsToV03(p: TaskPushNotificationConfig): V03TaskPushConfig {
  return pushConfigToV03(p);
}

/** `Get`/`DeleteTaskPushNotificationConfig` params as their v0.3 form (`id` is the task's). */
export function pushConfigRefToV03(p: TaskPushNotificationConfigRef): {
  id: string;
  pushNotificationConfigId: string;
} {
  return { id: p.taskId, pushNotificationConfigId: p.id };
}

/** `ListTaskPushNotificationConfigs` params as v0.3's: the task only (v0.3 answers the whole list, no paging). */
export function listPushConfigParamsToV03(p: { taskId: string }): { id: string } {
  return { id: p.taskId };
}
