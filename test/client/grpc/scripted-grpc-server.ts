/**
 * A grpc-js server of `lf.a2a.v1.A2AService` whose answers a test scripts per call, through metadata the client
 * sends as headers: `x-error: <A2AError name>` answers that error (`x-form`: `v101` (default) with its ErrorInfo as
 * a2a-once's server sends it, `v100` with v1.0.0's `UNIMPLEMENTED` code and the ErrorInfo, `bare` with the code
 * only); `x-status: <code>` answers a bare gRPC status (`x-retry-after` adds the trailer); `x-answer: big` answers a
 * message of `x-bytes` bytes, `x-answer: garbage` bytes that are no message; `x-events: <n>` streams `n` status
 * updates as fast as the client reads (counting what it wrote), each padded to about `x-pad` bytes; `x-auth: <token>` answers UNAUTHENTICATED unless
 * `authorization` is `Bearer <token>`; `x-hang` never answers (nor opens a stream). Otherwise it answers a completed task. Every call's metadata is recorded.
 */
import {
  Metadata,
  Server,
  ServerCredentials,
  type ServerUnaryCall,
  type ServerWritableStream,
  type ServiceError,
  type UntypedServiceImplementation,
} from '@grpc/grpc-js';
import { ERROR_SPECS, errorClassOf, type A2AErrorName } from '../../../src/protocol/errors.js';
import { GRPC_METHODS, GRPC_STATUS_CODE, encodeProto } from '../../../src/protocol/grpc/index.js';
import { a2aServiceDefinition } from '../../../src/server/grpc/grpc-service.js';
import { serviceErrorOf } from '../../../src/server/grpc/grpc-error.js';

export interface ScriptedServer {
  readonly address: string;
  /** The metadata of every call, by method, in order. */
  readonly calls: { method: string; metadata: Record<string, string>; deadline: number }[];
  /** Status updates a stream has written so far (the current `x-events` stream). */
  written(): number;
  /** Resolves when an `x-events` stream first finds the client not reading (a write said wait); once per server. */
  blocked(): Promise<void>;
  close(): Promise<void>;
}

const TASK = {
  id: 'task-1',
  contextId: 'ctx-1',
  status: { state: 'TASK_STATE_COMPLETED', timestamp: '2026-01-01T00:00:00.000Z' },
};

function valueOf(md: Metadata, key: string): string | undefined {
  const v = md.get(key)[0];
  return typeof v === 'string' ? v : undefined;
}

/** The answer a call's metadata scripts, or undefined for the default. */
function scripted(md: Metadata): ServiceError | undefined {
  const auth = valueOf(md, 'x-auth');
  if (auth !== undefined && valueOf(md, 'authorization') !== `Bearer ${auth}`)
    return serviceErrorOf(new (errorClassOf('UnauthenticatedError'))(), undefined);
  const name = valueOf(md, 'x-error') as A2AErrorName | undefined;
  if (name !== undefined && name in ERROR_SPECS) {
    const err = new (errorClassOf(name))();
    const form = valueOf(md, 'x-form') ?? 'v101';
    const served = serviceErrorOf(err, undefined);
    if (form === 'bare')
      return Object.assign(new Error(err.message), {
        code: served.code,
        details: err.message,
        metadata: new Metadata(),
      });
    if (form === 'v100') served.code = GRPC_STATUS_CODE.UNIMPLEMENTED;
    return served;
  }
  const status = valueOf(md, 'x-status');
  if (status !== undefined) {
    const trailers = new Metadata();
    const retryAfter = valueOf(md, 'x-retry-after');
    if (retryAfter !== undefined) trailers.set('retry-after', retryAfter);
    return Object.assign(new Error(`scripted ${status}`), {
      code: GRPC_STATUS_CODE[status as keyof typeof GRPC_STATUS_CODE],
      details: `scripted ${status}`,
      metadata: trailers,
    });
  }
  return undefined;
}

function record(
  calls: ScriptedServer['calls'],
  method: string,
  call: ServerUnaryCall<Buffer, Buffer> | ServerWritableStream<Buffer, Buffer>,
): void {
  const flat: Record<string, string> = {};
  for (const [k, v] of Object.entries(call.metadata.getMap()))
    flat[k] = typeof v === 'string' ? v : v.toString('base64');
  const d = call.getDeadline();
  calls.push({ method, metadata: flat, deadline: d instanceof Date ? d.getTime() : d });
}

export async function startScriptedServer(): Promise<ScriptedServer> {
  const calls: ScriptedServer['calls'] = [];
  let written = 0;
  let onBlocked: () => void = () => undefined;
  const blocked = new Promise<void>((r) => (onBlocked = r));
  const impl: UntypedServiceImplementation = {};
  for (const [method, shape] of Object.entries(GRPC_METHODS)) {
    if (!shape.serverStreaming) {
      impl[method] = (
        call: ServerUnaryCall<Buffer, Buffer>,
        callback: (e: ServiceError | null, v?: Buffer) => void,
      ) => {
        record(calls, method, call);
        const failure = scripted(call.metadata);
        if (failure !== undefined) return callback(failure);
        if (valueOf(call.metadata, 'x-hang') !== undefined) return; // never answered: the client gives up
        const answer = valueOf(call.metadata, 'x-answer');
        if (answer === 'big')
          return callback(null, Buffer.alloc(Number(valueOf(call.metadata, 'x-bytes') ?? '0'), 1));
        if (answer === 'garbage') return callback(null, Buffer.from([0xff, 0xff, 0xff]));
        const value = method === 'SendMessage' ? { task: TASK } : TASK;
        callback(null, Buffer.from(encodeProto(shape.responseType, value)));
      };
    } else {
      impl[method] = (call: ServerWritableStream<Buffer, Buffer>) => {
        record(calls, method, call);
        const failure = scripted(call.metadata);
        if (failure !== undefined) {
          call.emit('error', failure);
          return;
        }
        if (valueOf(call.metadata, 'x-hang') !== undefined) return; // never opened
        const n = Number(valueOf(call.metadata, 'x-events') ?? '0');
        written = 0;
        call.sendMetadata(new Metadata());
        const pad = Number(valueOf(call.metadata, 'x-pad') ?? '0');
        const working = {
          taskId: TASK.id,
          contextId: TASK.contextId,
          status: { state: 'TASK_STATE_WORKING' },
          ...(pad > 0 ? { metadata: { pad: 'x'.repeat(pad) } } : {}),
        };
        const write = async () => {
          call.write(
            Buffer.from(
              encodeProto('StreamResponse', { task: { ...TASK, status: { state: 'TASK_STATE_WORKING' } } }),
            ),
          );
          for (let i = 0; i < n && !call.cancelled; i++) {
            const ok = call.write(Buffer.from(encodeProto('StreamResponse', { statusUpdate: working })));
            written++;
            if (!ok) {
              onBlocked();
              await new Promise<void>((resolve) => call.once('drain', resolve));
            }
          }
          if (call.cancelled) return;
          call.write(
            Buffer.from(
              encodeProto('StreamResponse', {
                statusUpdate: { ...working, status: { state: 'TASK_STATE_COMPLETED' } },
              }),
            ),
          );
          call.end();
        };
        void write();
      };
    }
  }
  const server = new Server();
  server.addService(a2aServiceDefinition(), impl);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return {
    address: `127.0.0.1:${port}`,
    calls,
    written: () => written,
    blocked: () => blocked,
    close: () =>
      new Promise<void>((resolve) => {
        server.forceShutdown();
        resolve();
      }),
  };
}
