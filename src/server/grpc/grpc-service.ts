/**
 * The `lf.a2a.v1.A2AService` definition and implementation for a grpc-js server: all eleven methods, the two
 * streaming ones server-streaming (A2A §10). Messages pass through grpc-js as bytes: the edge decodes and
 * encodes them itself, so a request that is not a valid message is answered INVALID_ARGUMENT with its ErrorInfo
 * rather than grpc-js's INTERNAL.
 */
import type {
  handleServerStreamingCall,
  handleUnaryCall,
  ServerUnaryCall,
  ServerWritableStream,
  ServiceDefinition,
  UntypedServiceImplementation,
} from '@grpc/grpc-js';
import type { A2AMethod } from '../../protocol/constants.js';
import { toA2AError, type A2AError } from '../../protocol/errors.js';
import { GRPC_METHODS } from '../../protocol/grpc/index.js';
import type { RequestAuth } from '../auth/request-auth.js';
import { isInternal } from '../observability/error-log.js';
import { GrpcCallRefused, runGrpcCall, type GrpcCallEnv, type GrpcCallIn } from './grpc-call.js';
import { serviceErrorOf } from './grpc-error.js';
import { answerMetadata } from './grpc-metadata.js';
import { ServerBusyError } from '../../protocol/errors.js';

const passThrough = (b: Buffer): Buffer => b;

/** The service definition (bytes in, bytes out). */
export function a2aServiceDefinition(): ServiceDefinition {
  const def: Record<string, ServiceDefinition[string]> = {};
  for (const [method, shape] of Object.entries(GRPC_METHODS)) {
    def[method] = {
      path: shape.path,
      requestStream: false,
      responseStream: shape.serverStreaming,
      requestSerialize: passThrough,
      requestDeserialize: passThrough,
      responseSerialize: passThrough,
      responseDeserialize: passThrough,
      originalName: method,
    };
  }
  return def;
}

function deadlineOf(call: ServerUnaryCall<Buffer, Buffer> | ServerWritableStream<Buffer, Buffer>): number {
  const d = call.getDeadline();
  return d instanceof Date ? d.getTime() : d;
}

function callIn(call: ServerUnaryCall<Buffer, Buffer> | ServerWritableStream<Buffer, Buffer>): GrpcCallIn {
  return {
    request: call.request,
    metadata: call.metadata,
    deadlineMs: deadlineOf(call),
    onCancel: (f) => call.once('cancelled', f),
  };
}

function refusal(err: unknown): A2AError {
  return err instanceof GrpcCallRefused ? err.error : toA2AError(err);
}

/** The implementation of every method over `env`. */
export function a2aServiceImplementation(env: GrpcCallEnv): UntypedServiceImplementation {
  const auth: RequestAuth | undefined = env.options.auth;
  const impl: UntypedServiceImplementation = {};
  for (const [name, shape] of Object.entries(GRPC_METHODS)) {
    const method = name as A2AMethod;
    if (!shape.serverStreaming) {
      const unary: handleUnaryCall<Buffer, Buffer> = (call, callback) => {
        runGrpcCall(env, method, callIn(call)).then(
          (out) => {
            if (out.kind !== 'unary') throw new TypeError(`${method} answered a stream`);
            call.sendMetadata(answerMetadata(out.ctx));
            callback(null, out.bytes);
            out.finish();
          },
          (err: unknown) => callback(serviceErrorOf(refusal(err), auth)),
        );
      };
      impl[method] = unary;
    } else {
      const streaming: handleServerStreamingCall<Buffer, Buffer> = (call) => {
        runGrpcCall(env, method, callIn(call)).then(
          (out) => {
            if (out.kind !== 'stream') throw new TypeError(`${method} answered a unary result`);
            return pump(call, out, auth);
          },
          (err: unknown) => call.emit('error', serviceErrorOf(refusal(err), auth)),
        );
      };
      impl[method] = streaming;
    }
  }
  return impl;
}

/**
 * Writes the events of a stream as they come, with back-pressure. A client that cancels (or goes away) aborts
 * the call's signal and returns the iterable, so the handler's subscription is released at once; the task runs
 * on. A refusal mid-stream ends the call with its status; an unexpected error (logged) ends it UNAVAILABLE,
 * which a client reads as "re-attach", never as the task having failed (ADR 0106).
 */
async function pump(
  call: ServerWritableStream<Buffer, Buffer>,
  out: Extract<Awaited<ReturnType<typeof runGrpcCall>>, { kind: 'stream' }>,
  auth: RequestAuth | undefined,
): Promise<void> {
  const it = out.events[Symbol.asyncIterator]();
  let cancelled = call.cancelled;
  let wake: (() => void) | undefined;
  const onCancel = () => {
    cancelled = true;
    out.abort();
    wake?.();
    void it.return?.()?.catch(() => undefined);
  };
  call.once('cancelled', onCancel);
  try {
    call.sendMetadata(answerMetadata(out.ctx));
    while (!cancelled) {
      const next = await it.next();
      if (next.done || cancelled) break;
      if (!call.write(out.encode(next.value)) && !cancelled) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          call.once('drain', resolve);
        });
        wake = undefined;
      }
    }
    if (!cancelled) call.end();
    out.finish();
  } catch (err) {
    const answer = toA2AError(err);
    out.finish(answer);
    await it.return?.()?.catch(() => undefined);
    if (cancelled) return;
    const sent = isInternal(answer)
      ? new ServerBusyError({
          message:
            'The stream was cut by an unexpected error; the task goes on: re-attach with SubscribeToTask',
        })
      : answer;
    call.emit('error', serviceErrorOf(sent, auth));
  } finally {
    call.off('cancelled', onCancel);
  }
}
