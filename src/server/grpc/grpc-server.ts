/**
 * `serveGrpc`: the gRPC binding of an A2AServer on a port of its own (docs/guides/grpc.md, ADR 0106), beside
 * its HTTP surface, over the same gated handler: a shutdown of the A2AServer refuses the gRPC sends and ends
 * the gRPC streams exactly as it does the HTTP ones.
 */
import { Server, ServerCredentials } from '@grpc/grpc-js';
import type { A2AServer } from '../create-server.js';
import { callLogger, type GrpcCallEnv } from './grpc-call.js';
import { resolveGrpcOptions, type GrpcServeOptions, type ResolvedGrpcOptions } from './grpc-options.js';
import { a2aServiceDefinition, a2aServiceImplementation } from './grpc-service.js';

/** A listening gRPC server. */
export interface GrpcServerHandle {
  /** `host:port`, as a card's GRPC interface names it (A2A §10: no scheme). */
  readonly address: string;
  readonly port: number;
  /** The grpc-js server (to add services of your own). */
  readonly server: Server;
  /**
   * Stops taking calls, lets the ones in flight finish for up to `graceMs` (default 2 s), then cuts the rest.
   * Call it with `A2AServer.close`, which ends open streams and answers blocking sends (ADR 0088).
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/** Default of `close`'s `graceMs`. */
export const DEFAULT_GRPC_CLOSE_GRACE_MS = 2000;

/** The grpc-js channel options of a resolved configuration. */
export function grpcServerChannelOptions(o: ResolvedGrpcOptions): Record<string, number> {
  return {
    'grpc.max_receive_message_length': o.maxReceiveMessageBytes,
    'grpc.max_send_message_length': o.maxSendMessageBytes,
    'grpc.keepalive_time_ms': o.keepAliveTimeMs,
    'grpc.keepalive_timeout_ms': o.keepAliveTimeoutMs,
  };
}

/** The service of `a2a` for a grpc-js server you run yourself: `server.addService(s.definition, s.implementation)`. */
export function a2aGrpcService(
  a2a: Pick<A2AServer, 'binding'>,
  options: Pick<GrpcServeOptions, 'httpBaseUrl' | 'host'> = {},
) {
  const { handler, options: http } = a2a.binding;
  const env: GrpcCallEnv = {
    handler,
    options: http,
    logger: callLogger(handler),
    baseUrl: options.httpBaseUrl ?? http.publicBaseUrl ?? `http://${options.host ?? '127.0.0.1'}`,
  };
  return { definition: a2aServiceDefinition(), implementation: a2aServiceImplementation(env) };
}

/** Serves `a2a` over gRPC on `host:port`; resolves once it listens (rejects when it cannot). */
export async function serveGrpc(
  a2a: Pick<A2AServer, 'binding'>,
  options: GrpcServeOptions = {},
): Promise<GrpcServerHandle> {
  const o = resolveGrpcOptions(options);
  const server = new Server(grpcServerChannelOptions(o));
  const service = a2aGrpcService(a2a, options);
  server.addService(service.definition, service.implementation);
  const host = o.host.includes(':') && !o.host.startsWith('[') ? `[${o.host}]` : o.host;
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${o.port}`, o.credentials ?? ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  let closing: Promise<void> | undefined;
  return {
    address: `${host}:${port}`,
    port,
    server,
    close: (closeOptions) =>
      (closing ??= new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, closeOptions?.graceMs ?? DEFAULT_GRPC_CLOSE_GRACE_MS);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      })),
  };
}
