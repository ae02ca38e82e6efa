/**
 * One table from A2A method to handler call, shared by both bindings so they cannot drift apart (A2A §5.1:
 * every binding MUST provide the same operations with the same behaviour).
 */
import { IDEMPOTENCY_METADATA_KEY } from '../../idempotency/index.js';
import type { AgentCard } from '../../protocol/agent-card.js';
import type { A2AMethod } from '../../protocol/constants.js';
import type { StreamResponse } from '../../protocol/model.js';
import type { ParamsOf } from '../../protocol/parse.js';
import type { CallContext } from '../call-context.js';
import type { Authenticator } from '../auth/authenticator.js';
import { secureCard } from '../auth/card-security.js';
import { withInterfaces } from '../card.js';
import type { RequestHandler } from '../request-handler.js';
import { CRASH_ARMED, reachCrashPoint } from '../testing/crash-points.js';

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
 * extended card without interfaces gets the same per-origin interfaces as the public card, and states the
 * schemes of `auth` like the public card does (ADR 0076).
 */
export function dispatch<M extends A2AMethod>(
  handler: RequestHandler,
  method: M,
  params: ParamsOf<M>,
  ctx: CallContext,
  baseUrl: () => string,
  auth?: Authenticator,
): Promise<DispatchResult> {
  const result = (OPERATIONS[method] as Op<M>)(handler, params, ctx);
  if (CRASH_ARMED && method === 'SendMessage') return result.then(crashBeforeAnswer); // test-only (ADR 0041)
  // Not `async`: every operation but one passes its promise straight through (one promise less per call).
  if (method !== 'GetExtendedAgentCard') return result;
  return result.then(async (r) => {
    if (r.stream) return r;
    const base = baseUrl();
    const card = secureCard(withInterfaces(r.value as AgentCard, base, handler.grpcInterface), auth);
    // The extended card is signed like the public one (A2A §8.4, ADR 0074).
    return { stream: false, value: handler.cardSigner ? await handler.cardSigner.sign(card, base) : card };
  });
}

/** Passes a SendMessage answer through the test-only `before-answer` crash point (ADR 0041). */
function crashBeforeAnswer(r: DispatchResult): DispatchResult {
  reachCrashPoint('before-answer');
  return r;
}

/**
 * What an error log line may say about a call: the task it names (GetTask's `id`, a push config's `taskId`, a
 * continuation's `message.taskId`) and the idempotency key it carries, which the line must not show in clear.
 * Only read when an error is answered, never on the way in.
 */
export function callLogContext(
  method: A2AMethod,
  params: unknown,
): { method: A2AMethod; taskId: string | undefined; key: string | undefined } {
  const p = (typeof params === 'object' && params !== null ? params : {}) as Record<string, unknown>;
  const message = (typeof p.message === 'object' && p.message !== null ? p.message : {}) as Record<
    string,
    unknown
  >;
  const byId = method === 'GetTask' || method === 'CancelTask' || method === 'SubscribeToTask';
  const taskId = str(p.taskId) ?? str(message.taskId) ?? (byId ? str(p.id) : undefined);
  const metadata = message.metadata;
  const key =
    typeof metadata === 'object' && metadata !== null
      ? str((metadata as Record<string, unknown>)[IDEMPOTENCY_METADATA_KEY])
      : undefined;
  return { method, taskId, key };
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** Whether a string names an A2A method. */
export function isA2AMethod(name: string): name is A2AMethod {
  return Object.hasOwn(OPERATIONS, name);
}
