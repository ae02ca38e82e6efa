/**
 * One table from A2A method to handler call, shared by both bindings so they cannot drift apart (A2A §5.1:
 * every binding MUST provide the same operations with the same behaviour).
 */
import type { AgentCard } from '../../protocol/agent-card.js';
import type { A2AMethod } from '../../protocol/constants.js';
import type { StreamResponse } from '../../protocol/model.js';
import type { ParamsOf } from '../../protocol/parse.js';
import type { CallContext } from '../call-context.js';
import { withInterfaces } from '../card.js';
import type { RequestHandler } from '../request-handler.js';

/** A unary result or a stream. */
export type DispatchResult =
  | { readonly stream: false; readonly value: unknown }
  | { readonly stream: true; readonly events: AsyncIterable<StreamResponse> };

type Op<M extends A2AMethod> = (h: RequestHandler, p: ParamsOf<M>, c: CallContext) => Promise<DispatchResult>;

const asUnary = (value: unknown): DispatchResult => ({ stream: false, value });
const unary =
  <M extends A2AMethod>(f: (h: RequestHandler, p: ParamsOf<M>, c: CallContext) => Promise<unknown>): Op<M> =>
  (h, p, c) =>
    f(h, p, c).then(asUnary);

const streaming =
  <M extends A2AMethod>(
    f: (h: RequestHandler, p: ParamsOf<M>, c: CallContext) => Promise<AsyncIterable<StreamResponse>>,
  ): Op<M> =>
  async (h, p, c) => ({ stream: true, events: await f(h, p, c) });

const OPERATIONS: { [M in A2AMethod]: Op<M> } = {
  SendMessage: unary((h, p, c) => h.sendMessage(p, c)),
  SendStreamingMessage: streaming((h, p, c) => h.sendStreamingMessage(p, c)),
  GetTask: unary((h, p, c) => h.getTask(p, c)),
  ListTasks: unary((h, p, c) => h.listTasks(p, c)),
  CancelTask: unary((h, p, c) => h.cancelTask(p, c)),
  SubscribeToTask: streaming((h, p, c) => h.subscribeToTask(p, c)),
  CreateTaskPushNotificationConfig: unary((h, p, c) => h.createTaskPushNotificationConfig(p, c)),
  GetTaskPushNotificationConfig: unary((h, p, c) => h.getTaskPushNotificationConfig(p, c)),
  ListTaskPushNotificationConfigs: unary((h, p, c) => h.listTaskPushNotificationConfigs(p, c)),
  DeleteTaskPushNotificationConfig: unary(async (h, p, c) => {
    await h.deleteTaskPushNotificationConfig(p, c);
    return {};
  }),
  GetExtendedAgentCard: unary((h, p, c) => h.getExtendedAgentCard(p, c)),
};

/**
 * Calls the operation for `method`. `baseUrl` gives where the request arrived (or the configured public URL),
 * asked only by the one operation that needs it (an origin string per request is not free): an
 * extended card without interfaces gets the same per-origin interfaces as the public card.
 */
export function dispatch<M extends A2AMethod>(
  handler: RequestHandler,
  method: M,
  params: ParamsOf<M>,
  ctx: CallContext,
  baseUrl: () => string,
): Promise<DispatchResult> {
  const result = (OPERATIONS[method] as Op<M>)(handler, params, ctx);
  // Not `async`: every operation but one passes its promise straight through (one promise less per call).
  if (method !== 'GetExtendedAgentCard') return result;
  return result.then((r) =>
    r.stream ? r : { stream: false, value: withInterfaces(r.value as AgentCard, baseUrl()) },
  );
}

/** Whether a string names an A2A method. */
export function isA2AMethod(name: string): name is A2AMethod {
  return Object.hasOwn(OPERATIONS, name);
}
