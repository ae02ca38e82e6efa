/**
 * The v0.3 JSON-RPC methods as v1.0 operations: each v0.3 name, the v1.0 method it becomes, how its params are
 * read (into v1.0 params, then through the one v1.0 parser) and how its answer is written back. The binding
 * calls the same `dispatch` as for v1.0 names, so admission, keys and the lifecycle guard are the same code
 * (docs/guides/v03-peers.md, ADR 0098). `tasks/list` does not exist in v0.3's JSON-RPC binding.
 */
import type { A2AMethod } from '../../protocol/constants.js';
import type { AgentCard } from '../../protocol/agent-card.js';
import type { Message, StreamResponse, Task } from '../../protocol/model.js';
import type {
  ListTaskPushNotificationConfigsResponse,
  TaskPushNotificationConfig,
} from '../../protocol/requests.js';
import {
  cancelParamsToV1,
  deletePushConfigParamsToV1,
  getPushConfigParamsToV1,
  getTaskParamsToV1,
  listPushConfigParamsToV1,
  pushConfigToV03,
  resubscribeParamsToV1,
  sendParamsToV1,
  sendResultToV03,
  setPushConfigParamsToV1,
  streamEventToV03,
  taskToV03,
} from '../../protocol/v03/index.js';
import { cardToV03 } from './v03-card.js';

/** One v0.3 method. */
export interface V03Method {
  readonly v1: A2AMethod;
  /** v0.3 params into v1.0 params (JSON, still to be parsed by `parseParams`). */
  readonly params: (raw: unknown) => unknown;
  /**
   * A unary v1.0 result as its v0.3 form. `sign` signs a card as served (with card signing configured), so the
   * v0.3 extended card carries signatures over what the peer receives (ADR 0099).
   */
  readonly result: (value: unknown, sign?: CardSign) => unknown;
}

/** Signs a card object as served (`CardSigner.signServed` at the request's base URL). */
export type CardSign = (card: Record<string, unknown>) => Promise<Record<string, unknown>>;

const same = (v: unknown): unknown => v;

const TABLE: Readonly<Record<string, V03Method>> = {
  'message/send': {
    v1: 'SendMessage',
    params: sendParamsToV1,
    result: (v) => sendResultToV03(v as { task: Task } | { message: Message }),
  },
  'message/stream': { v1: 'SendStreamingMessage', params: sendParamsToV1, result: same },
  'tasks/get': { v1: 'GetTask', params: getTaskParamsToV1, result: (v) => taskToV03(v as Task) },
  'tasks/cancel': { v1: 'CancelTask', params: cancelParamsToV1, result: (v) => taskToV03(v as Task) },
  'tasks/resubscribe': { v1: 'SubscribeToTask', params: resubscribeParamsToV1, result: same },
  'tasks/pushNotificationConfig/set': {
    v1: 'CreateTaskPushNotificationConfig',
    params: setPushConfigParamsToV1,
    result: (v) => pushConfigToV03(v as TaskPushNotificationConfig),
  },
  'tasks/pushNotificationConfig/get': {
    v1: 'GetTaskPushNotificationConfig',
    params: getPushConfigParamsToV1,
    result: (v) => pushConfigToV03(v as TaskPushNotificationConfig),
  },
  // v0.3 answers the list as a bare array; v1.0's paging token has no v0.3 form.
  'tasks/pushNotificationConfig/list': {
    v1: 'ListTaskPushNotificationConfigs',
    params: listPushConfigParamsToV1,
    result: (v) => (v as ListTaskPushNotificationConfigsResponse).configs.map(pushConfigToV03),
  },
  'tasks/pushNotificationConfig/delete': {
    v1: 'DeleteTaskPushNotificationConfig',
    params: deletePushConfigParamsToV1,
    result: () => null,
  },
  'agent/getAuthenticatedExtendedCard': {
    v1: 'GetExtendedAgentCard',
    params: () => ({}),
    result: (v, sign) => {
      const card = cardToV03(v as AgentCard);
      return sign ? sign(card) : card;
    },
  },
};

/** The v0.3 method of a JSON-RPC method name, if it is one. */
export function v03Method(name: string): V03Method | undefined {
  return Object.hasOwn(TABLE, name) ? TABLE[name] : undefined;
}

/** Every v0.3 method name this server translates. */
export const V03_METHOD_NAMES: readonly string[] = Object.keys(TABLE);

/** A stream event of `message/stream` or `tasks/resubscribe` in its v0.3 form. */
export function v03StreamEvent(event: StreamResponse): unknown {
  return streamEventToV03(event);
}
