/**
 * v0.3 request params into v1.0 request params. Each function validates its v0.3 input (a structured
 * InvalidParamsError naming the fields otherwise) and returns the v1.0 params as JSON, which the caller then
 * reads with the one v1.0 parser (`parseParams`), so a v0.3 request meets every v1.0 limit. Metadata is copied
 * as sent: the idempotency key (`metadata["a2a-rust.com/idempotency-key"]`) stays on the message (ADR 0098).
 */
import type { DataPart, Message, Part } from '../model.js';
import { parseWith } from '../parse.js';
import type {
  CancelTaskRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  SendMessageConfiguration,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
  TaskPushNotificationConfigRef,
} from '../requests.js';
import {
  V03DeletePushConfigParamsSchema,
  V03GetPushConfigParamsSchema,
  V03MessageSendParamsSchema,
  V03TaskIdParamsSchema,
  V03TaskPushConfigSchema,
  V03TaskQueryParamsSchema,
  type V03Message,
  type V03Part,
  type V03PushConfig,
} from './schemas.js';
import { roleToV1 } from './states.js';

/**
 * The metadata flag that marks a v1.0 data part whose value is not an object, wrapped as `{ value }` because a
 * v0.3 data part holds only objects. `@a2a-js/sdk`'s compat layer uses the same flag, so either side unwraps
 * what the other wrapped.
 */
export const DATA_PART_WRAPPED_FLAG = 'data_part_compat';

/** A v0.3 part as a v1.0 part. */
export function partToV1(part: V03Part): Part {
  const meta = part.metadata === undefined ? {} : { metadata: { ...part.metadata } };
  if (part.kind === 'text') return { text: part.text, ...meta };
  if (part.kind === 'file') {
    const f = part.file;
    const named = {
      ...(f.name === undefined ? {} : { filename: f.name }),
      ...(f.mimeType === undefined ? {} : { mediaType: f.mimeType }),
    };
    return 'bytes' in f ? { raw: f.bytes, ...named, ...meta } : { url: f.uri, ...named, ...meta };
  }
  const md = part.metadata;
  if (md?.[DATA_PART_WRAPPED_FLAG] === true && 'value' in part.data) {
    const { [DATA_PART_WRAPPED_FLAG]: _flag, ...rest } = md;
    const out: DataPart = { data: part.data.value };
    if (Object.keys(rest).length > 0) out.metadata = rest;
    return out;
  }
  return { data: part.data, ...meta };
}

/** A v0.3 message as a v1.0 message. */
export function messageToV1(m: V03Message): Message {
  const out: Message = { messageId: m.messageId, role: roleToV1(m.role), parts: m.parts.map(partToV1) };
  if (m.contextId !== undefined) out.contextId = m.contextId;
  if (m.taskId !== undefined) out.taskId = m.taskId;
  if (m.metadata !== undefined) out.metadata = { ...m.metadata };
  if (m.extensions !== undefined) out.extensions = [...m.extensions];
  if (m.referenceTaskIds !== undefined) out.referenceTaskIds = [...m.referenceTaskIds];
  return out;
}

/** A v0.3 push config as the flat v1.0 form; `schemes` has one entry in v1.0, the first (ADR 0098). */
export function pushConfigToV1(c: V03PushConfig, taskId: string | undefined): TaskPushNotificationConfig {
  const out: TaskPushNotificationConfig = { url: c.url };
  if (c.id !== undefined) out.id = c.id;
  if (taskId !== undefined) out.taskId = taskId;
  if (c.token !== undefined) out.token = c.token;
  if (c.authentication !== undefined) {
    out.authentication = { scheme: c.authentication.schemes[0] ?? '' };
    if (c.authentication.credentials !== undefined)
      out.authentication.credentials = c.authentication.credentials;
  }
  return out;
}

/** `message/send` and `message/stream` params. v0.3's `blocking: false` is v1.0's `returnImmediately`. */
export function sendParamsToV1(raw: unknown): SendMessageRequest {
  const p = parseWith(V03MessageSendParamsSchema, raw, 'v0.3 MessageSendParams');
  const out: SendMessageRequest = { message: messageToV1(p.message) };
  const c = p.configuration;
  if (c !== undefined) {
    const conf: SendMessageConfiguration = {};
    if (c.acceptedOutputModes !== undefined) conf.acceptedOutputModes = [...c.acceptedOutputModes];
    if (c.historyLength !== undefined) conf.historyLength = c.historyLength;
    if (c.pushNotificationConfig !== undefined)
      conf.taskPushNotificationConfig = pushConfigToV1(c.pushNotificationConfig, undefined);
    if (c.blocking === false) conf.returnImmediately = true;
    out.configuration = conf;
  }
  if (p.metadata !== undefined) out.metadata = { ...p.metadata };
  return out;
}

/** `tasks/get` params. */
export function getTaskParamsToV1(raw: unknown): GetTaskRequest {
  const p = parseWith(V03TaskQueryParamsSchema, raw, 'v0.3 TaskQueryParams');
  return p.historyLength === undefined ? { id: p.id } : { id: p.id, historyLength: p.historyLength };
}

/** `tasks/cancel` params. */
export function cancelParamsToV1(raw: unknown): CancelTaskRequest {
  const p = parseWith(V03TaskIdParamsSchema, raw, 'v0.3 TaskIdParams');
  return p.metadata === undefined ? { id: p.id } : { id: p.id, metadata: { ...p.metadata } };
}

/** `tasks/resubscribe` params. */
export function resubscribeParamsToV1(raw: unknown): SubscribeToTaskRequest {
  return { id: parseWith(V03TaskIdParamsSchema, raw, 'v0.3 TaskIdParams').id };
}

/** `tasks/pushNotificationConfig/set` params. */
export function setPushConfigParamsToV1(raw: unknown): TaskPushNotificationConfig {
  const p = parseWith(V03TaskPushConfigSchema, raw, 'v0.3 TaskPushNotificationConfig');
  // v0.3's convention (its reference SDKs): a config set without an id is the task's one config, named by the
  // task id, so a later get without an id finds it (ADR 0098).
  const config =
    p.pushNotificationConfig.id === undefined
      ? { ...p.pushNotificationConfig, id: p.taskId }
      : p.pushNotificationConfig;
  return pushConfigToV1(config, p.taskId);
}

/**
 * `tasks/pushNotificationConfig/get` params. v0.3 lets a caller omit the config id and get "the" config of the
 * task: the one a v0.3 set without an id created, named by the task id (ADR 0098).
 */
export function getPushConfigParamsToV1(raw: unknown): TaskPushNotificationConfigRef {
  const p = parseWith(V03GetPushConfigParamsSchema, raw, 'v0.3 GetTaskPushNotificationConfigParams');
  return { taskId: p.id, id: p.pushNotificationConfigId ?? p.id };
}

/** `tasks/pushNotificationConfig/list` params. */
export function listPushConfigParamsToV1(raw: unknown): ListTaskPushNotificationConfigsRequest {
  return { taskId: parseWith(V03TaskIdParamsSchema, raw, 'v0.3 ListTaskPushNotificationConfigParams').id };
}

/** `tasks/pushNotificationConfig/delete` params. */
export function deletePushConfigParamsToV1(raw: unknown): TaskPushNotificationConfigRef {
  const p = parseWith(V03DeletePushConfigParamsSchema, raw, 'v0.3 DeleteTaskPushNotificationConfigParams');
  return { taskId: p.id, id: p.pushNotificationConfigId };
}
