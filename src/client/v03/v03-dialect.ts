/**
 * A2A v0.3 over the one JSON-RPC transport (ADR 0103): each v1.0 operation as its v0.3 method name and params,
 * its result and stream events read back into v1.0, so everything above the transport (keys, retries, the
 * failure classification, streams) is the same for a v0.3 agent as for a v1.0 one. v0.3 error codes -32001 to
 * -32007 mean what v1.0's do and are read by the same table; -32008 and -32009 are v1.0's and kept.
 *
 * The extension header is sent under both names: `A2A-Extensions` (v1.0) and `X-A2A-Extensions` (v0.3).
 * ListTasks has no v0.3 method: a definite `ClientError` before anything is sent.
 */
import type { JsonObject } from '../../protocol/model.js';
import type {
  CancelTaskRequest,
  GetTaskRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
  TaskPushNotificationConfigRef,
} from '../../protocol/requests.js';
import { HEADER_EXTENSIONS } from '../../protocol/constants.js';
import {
  cancelParamsToV03,
  cardToV1,
  getTaskParamsToV03,
  listPushConfigParamsToV03,
  pushConfigListToV1,
  pushConfigRefToV03,
  pushConfigResultToV1,
  resubscribeParamsToV03,
  sendParamsToV03,
  sendResultToV1,
  setPushConfigParamsToV03,
  streamEventToV1,
  taskResultToV1,
} from '../../protocol/v03/index.js';
import { ClientError } from '../transport/client-error.js';
import type { JsonRpcDialect } from '../transport/transport.js';

/** The v0.3 extension header (v0.3 §3.2.6). */
export const V03_HEADER_EXTENSIONS = 'X-A2A-Extensions';

/** One operation in v0.3: its method, its params from the v1.0 ones, its result into the v1.0 one. */
interface V03Call {
  readonly method: string;
  readonly params: (p: JsonObject) => unknown;
  readonly result: (raw: unknown) => unknown;
}

// The params are the v1.0 request the client itself built (`client.ts`): their v1.0 type is known by operation.
const asSend = (p: JsonObject) => sendParamsToV03(p as unknown as SendMessageRequest);
const CALLS: Readonly<Record<string, V03Call>> = {
  SendMessage: { method: 'message/send', params: asSend, result: sendResultToV1 },
  SendStreamingMessage: { method: 'message/stream', params: asSend, result: streamEventToV1 },
  GetTask: {
    method: 'tasks/get',
    params: (p) => getTaskParamsToV03(p as unknown as GetTaskRequest),
    result: taskResultToV1,
  },
  CancelTask: {
    method: 'tasks/cancel',
    params: (p) => cancelParamsToV03(p as unknown as CancelTaskRequest),
    result: taskResultToV1,
  },
  SubscribeToTask: {
    method: 'tasks/resubscribe',
    params: (p) => resubscribeParamsToV03(p as unknown as SubscribeToTaskRequest),
    result: streamEventToV1,
  },
  CreateTaskPushNotificationConfig: {
    method: 'tasks/pushNotificationConfig/set',
    params: (p) => setPushConfigParamsToV03(p as unknown as TaskPushNotificationConfig),
    result: pushConfigResultToV1,
  },
  GetTaskPushNotificationConfig: {
    method: 'tasks/pushNotificationConfig/get',
    params: (p) => pushConfigRefToV03(p as unknown as TaskPushNotificationConfigRef),
    result: pushConfigResultToV1,
  },
  ListTaskPushNotificationConfigs: {
    method: 'tasks/pushNotificationConfig/list',
    params: (p) => listPushConfigParamsToV03(p as unknown as { taskId: string }),
    result: pushConfigListToV1,
  },
  DeleteTaskPushNotificationConfig: {
    method: 'tasks/pushNotificationConfig/delete',
    params: (p) => pushConfigRefToV03(p as unknown as TaskPushNotificationConfigRef),
    result: () => ({}),
  },
  GetExtendedAgentCard: {
    method: 'agent/getAuthenticatedExtendedCard',
    params: () => ({}),
    result: cardToV1,
  },
};

function callOf(op: string): V03Call {
  const call = CALLS[op];
  if (call === undefined)
    throw new ClientError(
      'OPERATION_NOT_IN_VERSION',
      `${op} has no A2A v0.3 JSON-RPC method, and this agent speaks only v0.3: nothing was sent`,
    );
  return call;
}

/** The v0.3 JSON-RPC dialect (ADR 0103). */
export const V03_DIALECT: JsonRpcDialect = {
  request: (op, params) => {
    const call = callOf(op);
    return { method: call.method, params: call.params(params) };
  },
  headers: (headers) => {
    const out = { ...headers };
    const extensions = headers[HEADER_EXTENSIONS];
    if (extensions !== undefined) out[V03_HEADER_EXTENSIONS] = extensions;
    return out;
  },
  result: (op, raw) => callOf(op).result(raw),
  event: streamEventToV1,
};
