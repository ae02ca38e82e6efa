/**
 * The gRPC wire of A2A v1.0, shared by the gRPC server and client: the shipped `.proto` loaded at run time
 * with protobufjs (an optional peer), binary ⇄ ProtoJSON, the service's methods, and `google.rpc.Status`
 * with ErrorInfo details (ADR 0105, ADR 0106). Only the gRPC edges import this folder.
 */
export { decodeProto, encodeProto, protoRoundTrip, type A2AProtoMessageName } from './codec.js';
export { ProtoCodecError } from './proto-codec-error.js';
export { A2A_PROTO_PACKAGE, PROTO_DIR, protoRoot } from './proto-root.js';
export { A2A_GRPC_SERVICE, GRPC_METADATA, GRPC_METHODS, type GrpcMethodShape } from './service.js';
export {
  BAD_REQUEST_TYPE,
  GRPC_STATUS_CODE,
  decodeGrpcStatus,
  encodeGrpcStatus,
  fromGrpcStatus,
  grpcCodeName,
  grpcStatusOf,
  type GrpcCodeName,
  type GrpcStatusJson,
} from './status-codec.js';
