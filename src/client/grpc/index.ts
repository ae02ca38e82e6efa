/**
 * `a2a-once/client/grpc`: the gRPC binding for `A2AClient` (A2A §10, docs/guides/grpc-client.md, ADR 0110). Needs
 * the optional peers `@grpc/grpc-js` and `protobufjs`.
 * @example
 * const client = await A2AClient.fromCardUrl(url, { transports: [grpcTransport()], preferredBindings: ['GRPC'] });
 */
export { grpcTransport, type GrpcTransportOptions } from './grpc-factory.js';
export { DEFAULT_GRPC_CHANNEL_OPTIONS } from './grpc-channel.js';
export { STREAM_BUFFER_EVENTS } from './stream-reader.js';
