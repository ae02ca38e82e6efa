/**
 * The JSON-RPC 2.0 binding (A2A §9): one POST endpoint, PascalCase methods, `params` as the ProtoJSON request,
 * streaming methods answered as SSE whose every `data:` is a whole JSON-RPC response. Errors go out with HTTP
 * 200, as `@a2a-js/sdk` does, except a refusal that means "retry later" (503 + Retry-After), an oversized body
 * (413) and, when the host keeps A2A v1.0.0's table, a body of a type that is not JSON (415), whose HTTP status
 * says so to proxies and retrying clients. By default (v1.0.1) that refusal is -32005 with HTTP 200 (ADR 0058).
 * Answers are `application/json` whatever the `Accept`: §9 names that type in v1.0.0 and v1.0.1 alike, and
 * every JSON-RPC peer reads it; either JSON type is read on input (ADR 0042).
 */
import { live } from '../../../telemetry/telemetry.js';
import { MEDIA_JSON, STREAMING_METHODS, type A2AMethod } from '../../../protocol/constants.js';
import type { A2AError } from '../../../protocol/errors.js';
import { InvalidRequestError, MethodNotFoundError, toA2AError } from '../../../protocol/errors.js';
import { toJsonRpcError } from '../../../protocol/error-wire.js';
import { parseParams } from '../../../protocol/parse.js';
import { respond } from '../wire/light-response.js';
import type { RequestHandler } from '../../request-handler.js';
import { parseJsonText, readBodyText } from '../wire/body.js';
import { callerOf, setupCall } from '../../binding/call-setup.js';
import type { CallContext } from '../../call-context.js';
import {
  describeAnswer,
  describeError,
  describeRequest,
  startCallSpan,
  type CallSpan,
} from '../../binding/call-span.js';
import { startCallTimer, type CallTimer } from '../../binding/call-timer.js';
import { authChallengeHeaders } from '../call/auth-challenge.js';
import { isInternal, logInternalAnswer } from '../../observability/error-log.js';
import type { ServerLogger } from '../../observability/logger.js';
import { errorAnswer } from '../../binding/error-answer.js';
import { callLogContext, dispatch, isA2AMethod } from '../../binding/dispatch.js';
import type { ResolvedHttpOptions } from '../http-options.js';
import { assertJsonContentType } from '../wire/media-type.js';
import { answerHeaders } from '../../binding/service-params.js';
import { sseBody, sseHeaders } from '../wire/sse.js';
import { v03StreamEvent, type V03Method } from '../../compat/v03-methods.js';
import { legacyMethodOf } from './jsonrpc-v03.js';
import { ATTR } from '../../../telemetry/attributes.js';

type JsonRpcId = string | number | null;

function errorResponse(id: JsonRpcId, err: A2AError, extraHeaders: Record<string, string> = {}): Response {
  const http = err.httpStatus;
  // 401 and 403 keep their status, so a client and any proxy in between see a credential refused (ADR 0075).
  const status =
    http === 503 || http === 413 || http === 415 || http === 401 || http === 403
      ? http
      : err.code === -32603
        ? 500
        : 200;
  const headers: Record<string, string> = { 'Content-Type': MEDIA_JSON, ...extraHeaders };
  if (err.retryAfterSeconds !== undefined) headers['Retry-After'] = String(err.retryAfterSeconds);
  // An oversized body may still be arriving: close the connection so the client reads the 413 cleanly.
  if (err.httpStatus === 413) headers.Connection = 'close';
  return respond(status, JSON.stringify({ jsonrpc: '2.0', id, error: toJsonRpcError(err) }), headers);
}

/**
 * The refusal of a v0.3 `tasks/resubscribe` as one SSE event: v0.3 clients (its conformance kit, @a2a-js/sdk's
 * compat layer) read that method's answer as a stream whatever it holds (ADR 0098). Credential refusals keep
 * their plain status, so a client and any proxy still see them.
 */
function errorStream(id: JsonRpcId, err: A2AError, extraHeaders: Record<string, string>): Response {
  if (err.httpStatus === 401 || err.httpStatus === 403) return errorResponse(id, err, extraHeaders);
  const data = JSON.stringify({ jsonrpc: '2.0', id, error: toJsonRpcError(err) });
  return respond(200, `data: ${data}\n\n`, sseHeaders(extraHeaders));
}

/**
 * Handles one JSON-RPC request. Never throws: every failure is a JSON-RPC error response, and an unexpected one
 * (-32603) is logged first, with its stack and the task the call named (ADR 0029). With telemetry the call runs
 * in its SERVER span (ADR 0092).
 */
export function handleJsonRpc(
  req: Request,
  url: URL,
  handler: RequestHandler,
  options: ResolvedHttpOptions,
  logger: ServerLogger,
): Promise<Response> {
  const telemetry = live(handler.telemetry);
  const histograms = handler.histograms;
  const timer = histograms === undefined ? undefined : startCallTimer(histograms);
  if (telemetry === undefined) return answerJsonRpc(req, url, handler, options, logger, undefined, timer);
  const span = startCallSpan(telemetry, req, handler.agentCard.name, undefined);
  return span.span.run(() => answerJsonRpc(req, url, handler, options, logger, span, timer));
}

async function answerJsonRpc(
  req: Request,
  url: URL,
  handler: RequestHandler,
  options: ResolvedHttpOptions,
  logger: ServerLogger,
  span: CallSpan | undefined,
  timer: CallTimer | undefined,
): Promise<Response> {
  let id: JsonRpcId = null;
  // Known once parsed: what the error line of this call may say (read only when an error is answered).
  let method: A2AMethod | undefined;
  let params: unknown;
  // Only streams get an AbortController (tied to the client going away): a unary call's wait is bounded by
  // the blocking timeout, and a controller per request costs more than the rest of the call's bookkeeping.
  let ctl: AbortController | undefined;
  let ctx: CallContext | undefined;
  let legacy: V03Method | undefined;
  try {
    // Who calls is settled before the body is read: an unauthenticated request gets nothing parsed (ADR 0075).
    const pending = callerOf(req, options);
    const caller = pending instanceof Promise ? await pending : pending;
    assertJsonContentType(req, options.refusedContentTypeStatus);
    const body = parseJsonText(await readBodyText(req, options.maxBodyBytes));
    if (Array.isArray(body)) throw new InvalidRequestError('Batch requests are not supported');
    if (typeof body !== 'object' || body === null)
      throw new InvalidRequestError('A JSON-RPC request must be an object');
    const env = body as Record<string, unknown>;
    if (typeof env.id === 'string' || typeof env.id === 'number') id = env.id;
    if (env.jsonrpc !== '2.0') throw new InvalidRequestError('jsonrpc must be "2.0"');
    if (env.id !== undefined && env.id !== null && typeof env.id !== 'string' && typeof env.id !== 'number') {
      throw new InvalidRequestError('id must be a string, a number or null');
    }
    const name = env.method;
    if (typeof name !== 'string') throw new InvalidRequestError('method must be a string');
    // A v0.3 name is read as v0.3 and translated into the v1.0 call (ADR 0097, ADR 0098).
    legacy = legacyMethodOf(name, options);
    const v1 = legacy?.v1 ?? name;
    if (!isA2AMethod(v1))
      throw new MethodNotFoundError({ message: `Method not found: ${name}`, metadata: { method: name } });
    method = v1;
    const parsed = parseParams(v1, legacy ? legacy.params(env.params ?? {}) : (env.params ?? {}));
    params = parsed;
    const streaming = STREAMING_METHODS.has(v1);
    if (streaming) ctl = new AbortController();
    if (span) describeRequest(span, v1, parsed, parsed.tenant ?? '');
    const wireVersion = legacy ? '0.3' : undefined;
    // The version the call was read in, not the header's default: a v0.3 caller sends none (ADR 0097).
    if (span?.span.recording && wireVersion) span.span.setAttribute(ATTR.protocolVersion, wireVersion);
    ctx = setupCall(req, url, v1, parsed.tenant ?? '', caller, options, ctl?.signal, wireVersion);
    const result = await dispatch(
      handler,
      v1,
      parsed,
      ctx,
      () => options.publicBaseUrl ?? url.origin,
      options.cardAuthenticator,
    );
    const headers = answerHeaders(ctx);
    if (!result.stream) {
      timer?.done(v1);
      if (span) {
        describeAnswer(span, ctx, result.value);
        span.end();
      }
      headers['Content-Type'] = MEDIA_JSON;
      const signer = handler.cardSigner;
      const base = () => options.publicBaseUrl ?? url.origin;
      const value = legacy
        ? await legacy.result(result.value, signer ? (c) => signer.signServed(c, base()) : undefined)
        : result.value;
      return respond(200, JSON.stringify({ jsonrpc: '2.0', id, result: value }), headers);
    }
    const rid = id;
    if (span) describeAnswer(span, ctx, undefined);
    // A stream's span lasts as long as the stream.
    const abort = () => {
      ctl?.abort();
      span?.end();
      timer?.done(v1);
    };
    req.signal?.addEventListener('abort', abort, { once: true });
    const call = callLogContext(v1, parsed);
    const stream = sseBody(
      result.events,
      legacy
        ? (event) => JSON.stringify({ jsonrpc: '2.0', id: rid, result: v03StreamEvent(event) })
        : (event) => JSON.stringify({ jsonrpc: '2.0', id: rid, result: event }),
      (err) => JSON.stringify({ jsonrpc: '2.0', id: rid, error: toJsonRpcError(toA2AError(err)) }),
      options.sseKeepAliveMs,
      abort,
      (err, taskId) =>
        logInternalAnswer(logger, err, { ...call, taskId: taskId ?? call.taskId, as: 'stream' }),
      ctx.notes?.streamSeq,
    );
    return respond(200, stream, sseHeaders(headers));
  } catch (err) {
    ctl?.abort();
    const answer = errorAnswer(err, logger, () =>
      method === undefined ? {} : callLogContext(method, params),
    );
    if (isInternal(answer)) {
      const call = method === undefined ? {} : callLogContext(method, params);
      logInternalAnswer(logger, answer, { ...call, as: 'answer' });
    }
    timer?.done(method, answer.name);
    if (span) {
      describeError(span, method, ctx, answer);
      span.end();
    }
    const extra = authChallengeHeaders(answer, options);
    if (legacy?.v1 === 'SubscribeToTask') return errorStream(id, answer, extra);
    return errorResponse(id, answer, extra);
  }
}
