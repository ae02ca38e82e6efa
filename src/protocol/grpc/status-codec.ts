/**
 * A2A errors over gRPC (A2A §10.6, digest §4.1): the status code, the message, and a binary
 * `google.rpc.Status` whose details hold a `google.rpc.ErrorInfo` (reason, domain, metadata), sent in the
 * `grpc-status-details-bin` trailer. Details are the same ProtoJSON objects (`@type` + fields) the JSON-RPC
 * and REST bindings send, so one A2AError renders identically everywhere.
 */
import type { A2AError, GrpcStatusName } from '../errors.js';
import { ERROR_INFO_TYPE } from '../errors.js';
import { fromRestError } from '../error-wire.js';
import { decodeProto, encodeProto } from './codec.js';
import { ProtoCodecError } from './proto-codec-error.js';

/** The numeric gRPC status codes (grpc/status.h). */
export const GRPC_STATUS_CODE = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

/** A gRPC status code name. */
export type GrpcCodeName = keyof typeof GRPC_STATUS_CODE;

/** The type URL of `google.rpc.BadRequest`. */
export const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';

/** `google.rpc.Status` in ProtoJSON; each detail is `{ '@type': url, ...fields }`. */
export interface GrpcStatusJson {
  code: number;
  message: string;
  details?: Record<string, unknown>[];
}

const DETAIL_TYPES: Record<string, string> = {
  [ERROR_INFO_TYPE]: 'google.rpc.ErrorInfo',
  [BAD_REQUEST_TYPE]: 'google.rpc.BadRequest',
};

/** The status of an A2AError: its gRPC code (v1.0.1 table), its message, its ErrorInfo. */
export function grpcStatusOf(err: A2AError): GrpcStatusJson {
  return {
    code: GRPC_STATUS_CODE[err.grpcStatus],
    message: err.message,
    details: [{ ...err.toErrorInfo() }],
  };
}

/**
 * Encodes a Status for the `grpc-status-details-bin` trailer. ErrorInfo and BadRequest details are packed as
 * `Any`; a detail of another type must carry its packed bytes as base64 `value`.
 */
export function encodeGrpcStatus(status: GrpcStatusJson): Uint8Array {
  const details = (status.details ?? []).map((d, i) => {
    const url = d['@type'];
    if (typeof url !== 'string') throw new ProtoCodecError(`details[${i}]`, 'needs an @type');
    const typeName = DETAIL_TYPES[url];
    if (typeName === undefined) return { typeUrl: url, value: d.value ?? '' };
    const { '@type': _, ...fields } = d;
    return { typeUrl: url, value: Buffer.from(encodeProto(typeName, fields)).toString('base64') };
  });
  return encodeProto('google.rpc.Status', { code: status.code, message: status.message, details });
}

/** Decodes a `grpc-status-details-bin` trailer; details of unknown types keep their packed bytes as `value`. */
export function decodeGrpcStatus(bytes: Uint8Array): GrpcStatusJson {
  const raw = decodeProto('google.rpc.Status', bytes) as {
    code?: number;
    message?: string;
    details?: { typeUrl?: string; value?: string }[];
  };
  const details = (raw.details ?? []).map((any) => {
    const url = any.typeUrl ?? '';
    const typeName = DETAIL_TYPES[url];
    if (typeName === undefined) return { '@type': url, value: any.value ?? '' };
    const fields = decodeProto(typeName, Buffer.from(any.value ?? '', 'base64')) as Record<string, unknown>;
    return { '@type': url, ...fields };
  });
  const out: GrpcStatusJson = { code: raw.code ?? 0, message: raw.message ?? '' };
  if (details.length > 0) out.details = details;
  return out;
}

const HTTP_OF_CODE: Partial<Record<number, number>> = {
  [GRPC_STATUS_CODE.INVALID_ARGUMENT]: 400,
  [GRPC_STATUS_CODE.FAILED_PRECONDITION]: 400,
  [GRPC_STATUS_CODE.UNIMPLEMENTED]: 400,
  [GRPC_STATUS_CODE.NOT_FOUND]: 404,
  [GRPC_STATUS_CODE.UNAUTHENTICATED]: 401,
  [GRPC_STATUS_CODE.PERMISSION_DENIED]: 403,
  [GRPC_STATUS_CODE.RESOURCE_EXHAUSTED]: 429,
  [GRPC_STATUS_CODE.UNAVAILABLE]: 503,
};

/** The name of a numeric gRPC status code (`UNKNOWN` for a number outside the table). */
export function grpcCodeName(code: number): GrpcCodeName {
  for (const [name, n] of Object.entries(GRPC_STATUS_CODE)) if (n === code) return name as GrpcCodeName;
  return 'UNKNOWN';
}

/**
 * Rebuilds the A2AError a peer answered over gRPC: by the ErrorInfo reason first (A2A v1.0: never by status
 * alone), else by the code. v1.0.0 peers answer some errors UNIMPLEMENTED; the reason still names them.
 */
export function fromGrpcStatus(code: number, message: string, detailsBin?: Uint8Array): A2AError {
  let details: unknown[] | undefined;
  if (detailsBin !== undefined && detailsBin.length > 0) {
    try {
      details = decodeGrpcStatus(detailsBin).details;
    } catch {
      details = undefined; // an unreadable trailer: fall back to the code
    }
  }
  const status = grpcCodeName(code) as GrpcStatusName;
  return fromRestError(HTTP_OF_CODE[code] ?? 500, { error: { message, status, details } });
}
