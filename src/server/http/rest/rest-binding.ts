/**
 * The HTTP+JSON (REST) binding (A2A §11): ProtoJSON bodies, camelCase query parameters on GET, path variables
 * and the `/{tenant}` prefix filling the request, errors as `google.rpc.Status` with the error's HTTP status
 * (A2A v1.0), streams as SSE of bare StreamResponse objects. 201 for a created push config and 204 for a
 * deleted one, as `@a2a-js/sdk` does; clients accept any 2xx. Bodies of either JSON type are read, a body of
 * another declared type is refused with 400 (A2A v1.0.1; 415 when the host keeps v1.0.0's table, ADR 0058), and
 * JSON answers carry the type the request's `Accept` asks for (ADR 0042).
 */
import { ATTR } from '../../../telemetry/attributes.js';
import { live } from '../../../telemetry/telemetry.js';
import { STREAMING_METHODS } from '../../../protocol/constants.js';
import type { A2AError } from '../../../protocol/errors.js';
import { InvalidRequestError, toA2AError } from '../../../protocol/errors.js';
import { toRestErrorBody } from '../../../protocol/error-wire.js';
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
import { callLogContext, dispatch } from '../../binding/dispatch.js';
import type { ResolvedHttpOptions } from '../http-options.js';
import { assertJsonContentType, responseMediaType } from '../wire/media-type.js';
import type { RestMatch } from './rest-routes.js';
import { answerHeaders } from '../../binding/service-params.js';
import { sseBody, sseHeaders } from '../wire/sse.js';
import { MEDIA_JSON } from '../../../protocol/constants.js';
import { v03RestStreamEvent, type V03RestMatch } from '../../compat/v03-rest-routes.js';
import { v03RestErrorBody, v03RestErrorResponse } from './rest-v03-error.js';

/**
 * A REST error response for an A2AError, as the media type `responseMediaType` chose from the request's
 * `Accept` (ADR 0042).
 */
export function restErrorResponse(
  err: A2AError,
  mediaType: string,
  extraHeaders: Record<string, string> = {},
): Response {
  const headers: Record<string, string> = { 'Content-Type': mediaType, ...extraHeaders };
  if (err.retryAfterSeconds !== undefined) headers['Retry-After'] = String(err.retryAfterSeconds);
  // An oversized body may still be arriving: close the connection so the client reads the 413 cleanly.
  if (err.httpStatus === 413) headers.Connection = 'close';
  return respond(err.httpStatus, JSON.stringify(toRestErrorBody(err)), headers);
}

const NUMERIC_QUERY = new Set(['historyLength', 'pageSize', 'history_length', 'page_size']);
const BOOLEAN_QUERY = new Set(['includeArtifacts', 'include_artifacts']);

/** Query parameters as a request object: numbers and booleans converted, repeated keys as lists (§11.5). */
function queryObject(url: URL): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of url.searchParams) {
    if (k === 'A2A-Version') continue;
    let value: unknown = v;
    if (NUMERIC_QUERY.has(k) && /^-?\d+$/.test(v)) value = Number(v);
    else if (BOOLEAN_QUERY.has(k) && (v === 'true' || v === 'false')) value = v === 'true';
    const prev = out[k];
    out[k] =
      prev === undefined ? value : Array.isArray(prev) ? [...(prev as unknown[]), value] : [prev, value];
  }
  return out;
}

async function requestObject(
  req: Request,
  url: URL,
  options: ResolvedHttpOptions,
  legacy: boolean,
): Promise<Record<string, unknown>> {
  // GET and DELETE carry no body: a Content-Type on them declares nothing we read.
  if (req.method === 'GET' || req.method === 'DELETE') return queryObject(url);
  assertJsonContentType(req, options.refusedContentTypeStatus);
  const text = await readBodyText(req, options.maxBodyBytes);
  if (text.trim() === '') return {};
  const body = parseJsonText(text);
  // v0.3 clients (a2a-go, a2a-python) send `null` for an empty POST, as `@a2a-js/sdk`'s v0.3 server accepts.
  if (legacy && body === null) return {};
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidRequestError('The request body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

/**
 * Handles one REST request on a matched route. Never throws: an unexpected failure (500) is logged first, with
 * its stack and the task the call named (ADR 0029). With telemetry the call runs in its SERVER span (ADR 0092).
 */
export function handleRest(
  req: Request,
  url: URL,
  route: RestMatch,
  handler: RequestHandler,
  options: ResolvedHttpOptions,
  logger: ServerLogger,
  /** A v0.3 route (ADR 0100): read and answered in v0.3 proto-JSON, dispatched as `route.method`. */
  legacy?: V03RestMatch,
): Promise<Response> {
  const telemetry = live(handler.telemetry);
  const histograms = handler.histograms;
  const timer = histograms === undefined ? undefined : startCallTimer(histograms);
  if (telemetry === undefined)
    return answerRest(req, url, route, handler, options, logger, undefined, timer, legacy);
  const span = startCallSpan(telemetry, req, handler.agentCard.name, route.method);
  // The version the call was read in, not the header's default: a v0.3 caller sends none (ADR 0100).
  if (legacy !== undefined && span.span.recording) span.span.setAttribute(ATTR.protocolVersion, '0.3');
  return span.span.run(() => answerRest(req, url, route, handler, options, logger, span, timer, legacy));
}

async function answerRest(
  req: Request,
  url: URL,
  route: RestMatch,
  handler: RequestHandler,
  options: ResolvedHttpOptions,
  logger: ServerLogger,
  span: CallSpan | undefined,
  timer: CallTimer | undefined,
  legacy: V03RestMatch | undefined,
): Promise<Response> {
  // Known once parsed: what the error line of this call may say (read only when an error is answered).
  let params: unknown;
  // Only streams get an AbortController (tied to the client going away): a unary call's wait is bounded by
  // the blocking timeout, and a controller per request costs more than the rest of the call's bookkeeping.
  let ctl: AbortController | undefined;
  let ctx: CallContext | undefined;
  try {
    // Who calls is settled before the body is read: an unauthenticated request gets nothing parsed (ADR 0075).
    const pending = callerOf(req, options);
    const caller = pending instanceof Promise ? await pending : pending;
    const raw = await requestObject(req, url, options, legacy !== undefined);
    // Path variables and the path tenant are canonical (A2A v1.0: the path tenant wins over the body's).
    if (route.vars.id !== undefined) raw.id = route.vars.id;
    if (route.vars.taskId !== undefined) raw.taskId = route.vars.taskId;
    if (route.tenant !== '') raw.tenant = route.tenant;
    // A v0.3 body is read into v1.0 params first, then meets the same parser (ADR 0098, ADR 0100).
    const parsed = parseParams(route.method, legacy ? legacy.route.params(raw, legacy.vars) : raw);
    params = parsed;
    const streaming = STREAMING_METHODS.has(route.method);
    if (streaming) ctl = new AbortController();
    if (span) describeRequest(span, route.method, parsed, parsed.tenant ?? '');
    const wireVersion = legacy ? '0.3' : undefined;
    ctx = setupCall(req, url, route.method, parsed.tenant ?? '', caller, options, ctl?.signal, wireVersion);
    const result = await dispatch(
      handler,
      route.method,
      parsed,
      ctx,
      () => options.publicBaseUrl ?? url.origin,
      options.cardAuthenticator,
    );
    const headers = answerHeaders(ctx);
    if (result.stream) {
      if (span) describeAnswer(span, ctx, undefined);
      // A stream's span lasts as long as the stream.
      const abort = () => {
        ctl?.abort();
        span?.end();
        timer?.done(route.method);
      };
      req.signal?.addEventListener('abort', abort, { once: true });
      const call = callLogContext(route.method, parsed);
      const stream = sseBody(
        result.events,
        legacy ? (event) => JSON.stringify(v03RestStreamEvent(event)) : (event) => JSON.stringify(event),
        legacy
          ? (err) => v03RestErrorBody(toA2AError(err))
          : (err) => JSON.stringify(toRestErrorBody(toA2AError(err))),
        options.sseKeepAliveMs,
        abort,
        (err, taskId) =>
          logInternalAnswer(logger, err, { ...call, taskId: taskId ?? call.taskId, as: 'stream' }),
        ctx.notes?.streamSeq,
      );
      return respond(200, stream, sseHeaders(headers));
    }
    timer?.done(route.method);
    if (span) {
      describeAnswer(span, ctx, result.value);
      span.end();
    }
    if (legacy) {
      if (legacy.route.status === 204) return respond(204, null, headers);
      const signer = handler.cardSigner;
      const base = () => options.publicBaseUrl ?? url.origin;
      const value = await legacy.route.result(
        result.value,
        signer ? (c) => signer.signServed(c, base()) : undefined,
      );
      headers['Content-Type'] = MEDIA_JSON;
      return respond(legacy.route.status, JSON.stringify(value), headers);
    }
    if (route.method === 'DeleteTaskPushNotificationConfig') return respond(204, null, headers);
    headers['Content-Type'] = responseMediaType(req.headers.get('accept'));
    const status = route.method === 'CreateTaskPushNotificationConfig' ? 201 : 200;
    return respond(status, JSON.stringify(result.value), headers);
  } catch (err) {
    ctl?.abort();
    const answer = errorAnswer(err, logger, () => callLogContext(route.method, params ?? { ...route.vars }));
    if (isInternal(answer)) {
      // Path variables name the task even when the body could not be parsed.
      const call = callLogContext(route.method, params ?? { ...route.vars });
      logInternalAnswer(logger, answer, { ...call, as: 'answer' });
    }
    timer?.done(route.method, answer.name);
    if (span) {
      describeError(span, route.method, ctx, answer);
      span.end();
    }
    if (legacy) return v03RestErrorResponse(answer, authChallengeHeaders(answer, options));
    return restErrorResponse(
      answer,
      responseMediaType(req.headers.get('accept')),
      authChallengeHeaders(answer, options),
    );
  }
}
