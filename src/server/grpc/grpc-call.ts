/**
 * One gRPC call, a thin edge over the path the HTTP bindings take (ADR 0106): the request bytes are decoded to
 * ProtoJSON and parsed by the JSON-RPC binding's `parseParams`; the call is admitted by the shared `callerOf` /
 * `setupCall` (authentication, version, tenant grant, extensions) on a `Request` view of its metadata; the
 * shared `dispatch` runs it; errors are the shared `errorAnswer` rendered as a gRPC status. The call's deadline
 * and a client's cancellation abort the call context's signal, which ends a blocking wait or a stream (the task
 * itself runs on, as with a dropped SSE stream).
 */
import type { Metadata } from '@grpc/grpc-js';
import type { A2AMethod } from '../../protocol/constants.js';
import { InvalidParamsError, type A2AError } from '../../protocol/errors.js';
import type { StreamResponse } from '../../protocol/model.js';
import { parseParams } from '../../protocol/parse.js';
import {
  GRPC_METHODS,
  GRPC_STATUS_CODE,
  ProtoCodecError,
  decodeProto,
  encodeProto,
} from '../../protocol/grpc/index.js';
import { ATTR } from '../../telemetry/attributes.js';
import { live } from '../../telemetry/telemetry.js';
import { callerOf, setupCall } from '../binding/call-setup.js';
import {
  describeAnswer,
  describeError,
  describeRequest,
  startCallSpan,
  type CallSpan,
} from '../binding/call-span.js';
import { startCallTimer, type CallTimer } from '../binding/call-timer.js';
import { callLogContext, dispatch } from '../binding/dispatch.js';
import { errorAnswer } from '../binding/error-answer.js';
import type { CallContext } from '../call-context.js';
import { deadlineSignal } from '../deadline-signal.js';
import type { ResolvedHttpOptions } from '../http/http-options.js';
import { isInternal, logInternalAnswer } from '../observability/error-log.js';
import { jsonLineLogger, type ServerLogger } from '../observability/logger.js';
import type { RequestHandler } from '../request-handler.js';
import { callUrlOf, headersOf, requestViewOf } from './grpc-metadata.js';

/** What every call of one server shares. */
export interface GrpcCallEnv {
  readonly handler: RequestHandler;
  readonly options: ResolvedHttpOptions;
  readonly logger: ServerLogger;
  /** The base URL an extended card's default HTTP interfaces name. */
  readonly baseUrl: string;
}

/** What a call's transport gives the edge: the request bytes, metadata, deadline, and a cancellation hook. */
export interface GrpcCallIn {
  readonly request: Buffer;
  readonly metadata: Metadata;
  /** Epoch ms of the call's deadline, or Infinity. */
  readonly deadlineMs: number;
  /** Registers what to do when the client cancels (or the call is otherwise cut). */
  onCancel(f: () => void): void;
}

/** A call's outcome: a unary answer or an event stream, each with the context it ran in. */
export type GrpcCallOut =
  | { readonly kind: 'unary'; readonly bytes: Buffer; readonly ctx: CallContext; readonly finish: () => void }
  | {
      readonly kind: 'stream';
      readonly events: AsyncIterable<StreamResponse>;
      readonly ctx: CallContext;
      readonly encode: (e: StreamResponse) => Buffer;
      /** Called once when the stream ends for any reason; ends the span and the timer. */
      readonly finish: (err?: A2AError) => void;
      /** Aborts the call's signal: the handler's iterable ends. */
      readonly abort: () => void;
    };

/** A call refused: the A2AError to answer, the context if one was built. */
export class GrpcCallRefused extends Error {
  constructor(
    readonly error: A2AError,
    readonly ctx: CallContext | undefined,
  ) {
    super(error.message);
    this.name = 'GrpcCallRefused';
  }
}

/**
 * The reason a call's signal aborts with once the call is over or its client cancelled: one shared value, because
 * `abort()` without one builds a DOMException (its stack included) on every call, even on an aborted controller.
 */
const CALL_OVER = new DOMException('The gRPC call is over', 'AbortError');
/** The reason a call's signal aborts with when its deadline passes (shared, as above). */
const DEADLINE_PASSED = new DOMException('The gRPC call passed its deadline', 'TimeoutError');

/** The logger a server's calls use. */
export function callLogger(handler: RequestHandler): ServerLogger {
  return handler.logger ?? jsonLineLogger();
}

/** Runs one call up to its answer (a stream is returned unread); a refusal is a GrpcCallRefused. */
export async function runGrpcCall(
  env: GrpcCallEnv,
  method: A2AMethod,
  call: GrpcCallIn,
): Promise<GrpcCallOut> {
  const { handler } = env;
  const histograms = handler.histograms;
  const timer: CallTimer | undefined = histograms === undefined ? undefined : startCallTimer(histograms);
  const telemetry = live(handler.telemetry);
  const headers = headersOf(call.metadata);
  const span =
    telemetry === undefined
      ? undefined
      : startCallSpan(telemetry, { headers }, handler.agentCard.name, method);
  if (span?.span.recording) {
    span.span.setAttribute(ATTR.rpcSystem, 'grpc');
    span.span.setAttribute(ATTR.rpcService, 'lf.a2a.v1.A2AService');
    span.span.setAttribute(ATTR.rpcMethod, method);
    span.span.setAttribute(ATTR.protocolBinding, 'GRPC');
  }
  const run = () => admitAndDispatch(env, method, call, headers, span, timer);
  return span ? span.span.run(run) : run();
}

async function admitAndDispatch(
  env: GrpcCallEnv,
  method: A2AMethod,
  call: GrpcCallIn,
  headers: Headers,
  span: CallSpan | undefined,
  timer: CallTimer | undefined,
): Promise<GrpcCallOut> {
  const shape = GRPC_METHODS[method];
  const { handler, options, logger } = env;
  const ctl = new AbortController();
  call.onCancel(() => ctl.abort(CALL_OVER));
  let ctx: CallContext | undefined;
  let params: unknown;
  try {
    // Who calls is settled before the message is read (ADR 0075).
    const pending = options.auth ? callerOf(requestViewOf(shape.path, headers), options) : undefined;
    const caller = pending instanceof Promise ? await pending : pending;
    const parsed = parseParams(method, decodeRequest(shape.requestType, call.request));
    params = parsed;
    const tenant = parsed.tenant ?? '';
    if (span) describeRequest(span, method, parsed, tenant);
    // The deadline aborts the call's own controller: linked, not `AbortSignal.any` (tens of microseconds a call
    // on Node 20), and unlinked when the call is over, so the shared deadline signal holds nothing of it.
    if (Number.isFinite(call.deadlineMs)) {
      const deadline = deadlineSignal(Math.max(0, call.deadlineMs - Date.now()));
      const onDeadline = () => ctl.abort(DEADLINE_PASSED);
      deadline.addEventListener('abort', onDeadline, { once: true });
      ctl.signal.addEventListener('abort', () => deadline.removeEventListener('abort', onDeadline), {
        once: true,
      });
    }
    const signal = ctl.signal;
    ctx = setupCall({ headers }, callUrlOf(shape.path), method, tenant, caller, options, signal);
    const result = await dispatch(handler, method, parsed, ctx, () => env.baseUrl, options.cardAuthenticator);
    const at = ctx;
    if (!result.stream) {
      const bytes = Buffer.from(encodeProto(shape.responseType, result.value));
      return {
        kind: 'unary',
        bytes,
        ctx: at,
        finish: () => {
          ctl.abort(CALL_OVER); // the call is over: what still listens to its signal lets go
          timer?.done(method);
          if (span) {
            describeAnswer(span, at, result.value);
            span.span.setAttribute(ATTR.rpcGrpcStatus, GRPC_STATUS_CODE.OK);
            span.end();
          }
        },
      };
    }
    if (span) describeAnswer(span, at, undefined);
    const log = callLogContext(method, parsed);
    let finished = false;
    return {
      kind: 'stream',
      events: result.events,
      ctx: at,
      encode: (e) => Buffer.from(encodeProto(shape.responseType, e)),
      abort: () => ctl.abort(),
      finish: (err) => {
        if (finished) return;
        finished = true;
        ctl.abort(CALL_OVER);
        timer?.done(method, err?.name);
        if (err !== undefined && isInternal(err)) logInternalAnswer(logger, err, { ...log, as: 'stream' });
        if (span) {
          if (err !== undefined) describeError(span, method, at, err);
          span.end();
        }
      },
    };
  } catch (err) {
    ctl.abort(CALL_OVER);
    const answer = errorAnswer(err, logger, () =>
      params === undefined ? { method } : callLogContext(method, params),
    );
    if (isInternal(answer))
      logInternalAnswer(logger, answer, { ...callLogContext(method, params), as: 'answer' });
    timer?.done(method, answer.name);
    if (span) {
      describeError(span, method, ctx, answer);
      span.span.setAttribute(ATTR.rpcGrpcStatus, GRPC_STATUS_CODE[answer.grpcStatus]);
      span.end();
    }
    throw new GrpcCallRefused(answer, ctx);
  }
}

/** Decodes a request message; bytes that are not one are the caller's bad input (INVALID_ARGUMENT). */
function decodeRequest(type: string, bytes: Buffer): unknown {
  try {
    return decodeProto(type, bytes);
  } catch (err) {
    if (err instanceof ProtoCodecError)
      throw new InvalidParamsError({ message: `Invalid parameters: ${err.message}`, cause: err });
    throw err;
  }
}
