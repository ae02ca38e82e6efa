/**
 * How an A2AError travels: the JSON-RPC `error` member and the REST `google.rpc.Status` body (A2A v1.0), and
 * the way back. Rebuilding goes by ErrorInfo reason first, then by code (A2A v1.0: "never by HTTP status
 * alone").
 */
import {
  A2AError,
  ERROR_INFO_TYPE,
  errorClassOf,
  errorNameForCode,
  errorNameForReason,
  type A2AErrorName,
  type A2AErrorSpec,
  type ErrorInfo,
  type GrpcStatusName,
} from './errors.js';

/** A JSON-RPC 2.0 error object. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** `google.rpc.Status` as the REST binding sends it. */
export interface RestErrorBody {
  error: { code: number; status: string; message: string; details?: unknown[] };
}

/** The JSON-RPC `error` member for an error. */
export function toJsonRpcError(err: A2AError): JsonRpcErrorObject {
  return { code: err.code, message: err.message, data: [err.toErrorInfo()] };
}

/** The REST error body for an error. */
export function toRestErrorBody(err: A2AError): RestErrorBody {
  return {
    error: {
      code: err.httpStatus,
      status: err.grpcStatus,
      message: err.message,
      details: [err.toErrorInfo()],
    },
  };
}

function findErrorInfo(details: unknown): ErrorInfo | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const d of details as unknown[]) {
    if (typeof d === 'object' && d !== null) {
      const rec = d as Record<string, unknown>;
      if (rec['@type'] === ERROR_INFO_TYPE && typeof rec.reason === 'string')
        return rec as unknown as ErrorInfo;
    }
  }
  return undefined;
}

function stringMetadata(md: unknown): Record<string, string> | undefined {
  if (typeof md !== 'object' || md === null) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(md)) out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  return out;
}

/** An error of a kind we do not know, kept with what the peer said. */
function unknownError(
  code: number,
  httpStatus: number,
  grpcStatus: GrpcStatusName,
  reason: string,
  domain: string,
  message: string,
  metadata?: Record<string, string>,
): A2AError {
  const s: A2AErrorSpec = {
    name: 'A2AError',
    code,
    httpStatus,
    grpcStatus,
    reason,
    domain,
    defaultMessage: message,
  };
  return new A2AError(s, metadata ? { message, metadata } : { message });
}

/** Rebuilds an A2AError from a JSON-RPC error object. */
export function fromJsonRpcError(error: JsonRpcErrorObject, retryAfterSeconds?: number): A2AError {
  const info = findErrorInfo(error.data);
  const metadata = stringMetadata(info?.metadata);
  const name = (info && errorNameForReason(info.reason)) ?? errorNameForCode(error.code);
  const opts = {
    message: error.message,
    ...(metadata ? { metadata } : {}),
    ...(retryAfterSeconds ? { retryAfterSeconds } : {}),
  };
  if (name) return new (errorClassOf(name))(opts);
  return unknownError(
    error.code,
    500,
    'UNKNOWN',
    info?.reason ?? 'UNKNOWN',
    info?.domain ?? '',
    error.message,
    metadata,
  );
}

const HTTP_FALLBACK: Record<number, A2AErrorName> = {
  400: 'InvalidParamsError',
  401: 'UnauthenticatedError',
  403: 'PermissionDeniedError',
  404: 'TaskNotFoundError',
  413: 'PayloadTooLargeError',
  500: 'InternalError',
};

/** Rebuilds an A2AError from a REST error response (status + parsed body, which may be anything). */
export function fromRestError(httpStatus: number, body: unknown, retryAfterSeconds?: number): A2AError {
  const err =
    typeof body === 'object' && body !== null
      ? (body as { error?: Record<string, unknown> }).error
      : undefined;
  const message = typeof err?.message === 'string' ? err.message : `HTTP ${httpStatus}`;
  const info = findErrorInfo(err?.details);
  const metadata = stringMetadata(info?.metadata);
  const opts = {
    message,
    ...(metadata ? { metadata } : {}),
    ...(retryAfterSeconds ? { retryAfterSeconds } : {}),
  };
  const name = info ? errorNameForReason(info.reason) : HTTP_FALLBACK[httpStatus];
  if (name) return new (errorClassOf(name))(opts);
  const status = typeof err?.status === 'string' ? (err.status as GrpcStatusName) : 'UNKNOWN';
  return unknownError(
    -32603,
    httpStatus,
    status,
    info?.reason ?? 'UNKNOWN',
    info?.domain ?? '',
    message,
    metadata,
  );
}
