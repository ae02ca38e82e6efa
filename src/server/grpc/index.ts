/**
 * `a2a-once/server/grpc`: the gRPC binding of A2A v1.0 (A2A §10, docs/guides/grpc.md, ADR 0106). Needs the
 * optional peers `@grpc/grpc-js` and `protobufjs`.
 * @example
 * const a2a = createA2AServer({ agent, card, grpcInterface: { url: '127.0.0.1:50051' } });
 * const grpc = await serveGrpc(a2a, { port: 50051 });
 * // on shutdown: await Promise.all([grpc.close(), a2a.close()]);
 */
export {
  DEFAULT_GRPC_CLOSE_GRACE_MS,
  a2aGrpcService,
  grpcServerChannelOptions,
  serveGrpc,
  type GrpcServerHandle,
} from './grpc-server.js';
export {
  GRPC_DEFAULTS,
  resolveGrpcOptions,
  type GrpcServeOptions,
  type ResolvedGrpcOptions,
} from './grpc-options.js';
export { A2A_GRPC_SERVICE, GRPC_METADATA, GRPC_STATUS_CODE } from '../../protocol/grpc/index.js';
