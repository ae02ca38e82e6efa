/**
 * The v0.3 HTTP+JSON (REST) routes (ADR 0100), each as the v1.0 operation it becomes: how the path, query and
 * proto-JSON body are read (into v0.3 params, then through the same v0.3 translations and the one v1.0 parser
 * as v0.3 JSON-RPC) and how the answer is written back in v0.3 proto-JSON. The REST binding runs them through
 * the same `dispatch` as v1.0 routes. The paths are those `@a2a-js/sdk`'s LegacyRestTransport calls, all under
 * `/v1`: `message:send`, `message:stream`, `tasks/{id}` (GET), `tasks/{id}:cancel`, `tasks/{id}:subscribe`
 * (GET or POST), `tasks/{id}/pushNotificationConfigs[/{configId}]`, `card`.
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
import {
  sendRequestFromProto,
  sendResultToProto,
  streamEventToProto,
  taskPushConfigFromProto,
  taskPushConfigToProto,
  taskToProto,
} from '../../protocol/v03/proto-json/index.js';
import { cardToV03Proto } from './v03-card.js';
import type { CardSign } from './v03-methods.js';

/** The path variables of a v0.3 route. */
export interface V03RestVars {
  readonly id?: string;
  readonly configId?: string;
}

/** One v0.3 REST route. */
export interface V03RestRoute {
  readonly v1: A2AMethod;
  /** The body (or query object) and path variables as v1.0 params (JSON, still to be parsed). */
  readonly params: (raw: Record<string, unknown>, vars: V03RestVars) => unknown;
  /** A unary v1.0 result as its v0.3 proto-JSON answer. */
  readonly result: (value: unknown, sign?: CardSign) => unknown;
  /** The HTTP status of a unary success. */
  readonly status: number;
}

const id = (vars: V03RestVars): string => vars.id ?? '';

const task = (v: unknown): unknown => taskToProto(taskToV03(v as Task));
const pushConfig = (v: unknown): unknown =>
  taskPushConfigToProto(pushConfigToV03(v as TaskPushNotificationConfig));

const SEND: V03RestRoute = {
  v1: 'SendMessage',
  params: (raw) => sendParamsToV1(sendRequestFromProto(raw)),
  result: (v) => sendResultToProto(sendResultToV03(v as { task: Task } | { message: Message })),
  status: 200,
};
const STREAM: V03RestRoute = { ...SEND, v1: 'SendStreamingMessage' };
const GET_TASK: V03RestRoute = {
  v1: 'GetTask',
  params: (raw, vars) => {
    const h = raw.historyLength ?? raw.history_length;
    return getTaskParamsToV1(h === undefined ? { id: id(vars) } : { id: id(vars), historyLength: h });
  },
  result: task,
  status: 200,
};
const CANCEL: V03RestRoute = {
  v1: 'CancelTask',
  params: (_raw, vars) => cancelParamsToV1({ id: id(vars) }),
  result: task,
  status: 200,
};
const SUBSCRIBE: V03RestRoute = {
  v1: 'SubscribeToTask',
  params: (_raw, vars) => resubscribeParamsToV1({ id: id(vars) }),
  result: (v) => v,
  status: 200,
};
const SET_PUSH: V03RestRoute = {
  v1: 'CreateTaskPushNotificationConfig',
  params: (raw, vars) => setPushConfigParamsToV1(taskPushConfigFromProto(raw, id(vars))),
  result: pushConfig,
  status: 201,
};
const LIST_PUSH: V03RestRoute = {
  v1: 'ListTaskPushNotificationConfigs',
  params: (_raw, vars) => listPushConfigParamsToV1({ id: id(vars) }),
  result: (v) => ({ configs: (v as ListTaskPushNotificationConfigsResponse).configs.map(pushConfig) }),
  status: 200,
};
const GET_PUSH: V03RestRoute = {
  v1: 'GetTaskPushNotificationConfig',
  params: (_raw, vars) => getPushConfigParamsToV1({ id: id(vars), pushNotificationConfigId: vars.configId }),
  result: pushConfig,
  status: 200,
};
const DELETE_PUSH: V03RestRoute = {
  v1: 'DeleteTaskPushNotificationConfig',
  params: (_raw, vars) =>
    deletePushConfigParamsToV1({ id: id(vars), pushNotificationConfigId: vars.configId }),
  result: () => null,
  status: 204,
};
const CARD: V03RestRoute = {
  v1: 'GetExtendedAgentCard',
  params: () => ({}),
  result: (v, sign) => {
    const card = cardToV03Proto(v as AgentCard);
    return sign ? sign(card) : card;
  },
  status: 200,
};

/** A matched v0.3 route with its path variables. */
export interface V03RestMatch {
  readonly route: V03RestRoute;
  readonly vars: V03RestVars;
}

/** A known v0.3 path with another verb, or an unknown path under a v0.3 route word. */
export type V03RestMiss =
  { readonly miss: 'not-found' } | { readonly miss: 'method-not-allowed'; readonly allow: string };

const V03_WORDS = new Set(['message:send', 'message:stream', 'tasks', 'card']);

/** Whether a path is under the v0.3 REST prefix: `/v1/` followed by one of its route words. */
export function isV03RestPath(segs: readonly string[]): boolean {
  return segs.length >= 2 && segs[0] === 'v1' && V03_WORDS.has(segs[1]!);
}

function only(verb: string, allowed: string, route: V03RestRoute, vars: V03RestVars = {}) {
  return verb === allowed ? { route, vars } : ({ miss: 'method-not-allowed', allow: allowed } as const);
}

/** Matches the segments after `/v1` (decoded) and a verb. */
export function matchV03Rest(verb: string, segs: readonly string[]): V03RestMatch | V03RestMiss {
  const [a, b, c, d, ...rest] = segs;
  if (rest.length > 0) return { miss: 'not-found' };
  if (segs.length === 1 && a === 'message:send') return only(verb, 'POST', SEND);
  if (segs.length === 1 && a === 'message:stream') return only(verb, 'POST', STREAM);
  if (segs.length === 1 && a === 'card') return only(verb, 'GET', CARD);
  if (a !== 'tasks' || b === undefined || b === '') return { miss: 'not-found' };
  if (segs.length === 2) {
    const colon = b.lastIndexOf(':');
    if (colon === -1) return only(verb, 'GET', GET_TASK, { id: b });
    const taskId = b.slice(0, colon);
    const action = b.slice(colon + 1);
    if (taskId === '') return { miss: 'not-found' };
    if (action === 'cancel') return only(verb, 'POST', CANCEL, { id: taskId });
    if (action === 'subscribe')
      return verb === 'GET' || verb === 'POST'
        ? { route: SUBSCRIBE, vars: { id: taskId } }
        : { miss: 'method-not-allowed', allow: 'GET, POST' };
    return { miss: 'not-found' };
  }
  if (c !== 'pushNotificationConfigs') return { miss: 'not-found' };
  if (segs.length === 3) {
    if (verb === 'POST') return { route: SET_PUSH, vars: { id: b } };
    if (verb === 'GET') return { route: LIST_PUSH, vars: { id: b } };
    return { miss: 'method-not-allowed', allow: 'GET, POST' };
  }
  if (d === undefined || d === '') return { miss: 'not-found' };
  if (verb === 'GET') return { route: GET_PUSH, vars: { id: b, configId: d } };
  if (verb === 'DELETE') return { route: DELETE_PUSH, vars: { id: b, configId: d } };
  return { miss: 'method-not-allowed', allow: 'GET, DELETE' };
}

/** A stream event of `message:stream` or `tasks/{id}:subscribe` as v0.3 proto-JSON. */
export function v03RestStreamEvent(event: StreamResponse): unknown {
  return streamEventToProto(streamEventToV03(event));
}
