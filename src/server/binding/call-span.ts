/**
 * The SERVER span of one A2A call (ADR 0092), for both bindings: started from the trace context the request's
 * headers carry, named by the A2A method, attributed as the OpenTelemetry A2A conventions say, and active while
 * the handler runs, so the agent turn a send starts is its child. Only built when the host passed telemetry.
 */
import { HEADER_VERSION, PROTOCOL_VERSION, type A2AMethod } from '../../protocol/constants.js';
import type { A2AError } from '../../protocol/errors.js';
import { ATTR } from '../../telemetry/attributes.js';
import type { Telemetry, TelemetrySpan } from '../../telemetry/telemetry.js';
import type { CallContext } from '../call-context.js';

/** A call's span; `end` may be called more than once (a stream ends it when it closes). */
export interface CallSpan {
  readonly span: TelemetrySpan;
  end(): void;
}

/** The name of a JSON-RPC call's span until its method is read. */
const UNREAD_METHOD = 'A2A';

/** Starts the span of a call whose method may not be known yet (JSON-RPC reads it from the body). */
export function startCallSpan(
  telemetry: Telemetry,
  req: Pick<Request, 'headers'>,
  agentName: string,
  method: A2AMethod | undefined,
): CallSpan {
  const span = telemetry.startSpan(method ?? UNREAD_METHOD, {
    kind: 'server',
    parent: (name) => req.headers.get(name),
    attributes: {
      [ATTR.agentName]: agentName,
      [ATTR.protocolVersion]: req.headers.get(HEADER_VERSION) ?? PROTOCOL_VERSION,
      [ATTR.method]: method,
    },
  });
  let ended = false;
  return {
    span,
    end: () => {
      if (ended) return;
      ended = true;
      span.end();
    },
  };
}

/** What the parsed request says: the method, the tenant, the message (never its metadata: a key is there). */
export function describeRequest(call: CallSpan, method: A2AMethod, params: unknown, tenant: string): void {
  const s = call.span;
  if (!s.recording) return;
  s.rename(method);
  s.setAttribute(ATTR.method, method);
  if (tenant !== '') s.setAttribute(ATTR.tenant, tenant);
  const p = params as {
    message?: { messageId?: unknown; taskId?: unknown; contextId?: unknown };
    id?: unknown;
  };
  const message = p.message;
  if (message !== undefined) {
    if (typeof message.messageId === 'string') s.setAttribute(ATTR.messageId, message.messageId);
    if (typeof message.taskId === 'string') s.setAttribute(ATTR.taskId, message.taskId);
    if (typeof message.contextId === 'string') s.setAttribute(ATTR.contextId, message.contextId);
  } else if (typeof p.id === 'string') s.setAttribute(ATTR.taskId, p.id);
}

/** What the answer says: the task, its state and context, or a direct reply's context; how a send was admitted. */
export function describeAnswer(call: CallSpan, ctx: CallContext, value: unknown): void {
  const s = call.span;
  if (!s.recording) return;
  const admitted = ctx.notes?.admission;
  if (admitted !== undefined) s.setAttribute(ATTR.admission, admitted === 'created' ? 'claimed' : admitted);
  const v = value as {
    task?: unknown;
    message?: { contextId?: unknown; taskId?: unknown };
    id?: unknown;
    status?: { state?: unknown };
    contextId?: unknown;
  } | null;
  if (typeof v !== 'object' || v === null) return;
  const task = (typeof v.task === 'object' && v.task !== null ? v.task : v) as typeof v;
  if (typeof task.id === 'string' && typeof task.status?.state === 'string') {
    s.setAttribute(ATTR.taskId, task.id);
    s.setAttribute(ATTR.taskState, task.status.state);
    if (typeof task.contextId === 'string') s.setAttribute(ATTR.contextId, task.contextId);
  } else if (typeof v.message?.contextId === 'string') s.setAttribute(ATTR.contextId, v.message.contextId);
}

/**
 * An answered error: `error.type` is the A2A error's name (`TaskNotFoundError`, `InternalError`, …). A send
 * refused before it was admitted says why in its admission outcome: `conflict` (the key was used for another
 * message), `expired` (the key's record is gone) or `refused` (anything else).
 */
export function describeError(
  call: CallSpan,
  method: A2AMethod | undefined,
  ctx: CallContext | undefined,
  err: A2AError,
): void {
  const admitted = ctx?.notes?.admission;
  if (admitted !== undefined)
    call.span.setAttribute(ATTR.admission, admitted === 'created' ? 'claimed' : admitted);
  else if (method === 'SendMessage' || method === 'SendStreamingMessage') {
    const outcome =
      err.name === 'IdempotencyKeyReusedError'
        ? 'conflict'
        : err.name === 'IdempotencyKeyExpiredError'
          ? 'expired'
          : 'refused';
    call.span.setAttribute(ATTR.admission, outcome);
  }
  call.span.fail(err.name);
}
