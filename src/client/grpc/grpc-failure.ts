/**
 * What a gRPC call's failure says (docs/semantics.md §7, ADR 0112), read as the HTTP bindings read theirs:
 * - An A2A error is read from the ErrorInfo in `grpc-status-details-bin` first, by its reason (A2A v1.0: never by
 *   status alone), so a v1.0.0 peer's `UNIMPLEMENTED` with reason `UNSUPPORTED_OPERATION` is the same error as a
 *   v1.0.1 peer's `FAILED_PRECONDITION`. It is then classified like any A2A answer (`failure-kind.ts`): definite,
 *   except INTERNAL / UNAVAILABLE ones (ambiguous) and the capacity refusal (refused).
 * - A status without ErrorInfo: the codes that name an A2A error by themselves (NOT_FOUND, UNIMPLEMENTED as v1.0.0
 *   sent unsupported operations, INVALID_ARGUMENT, UNAUTHENTICATED, PERMISSION_DENIED) are those errors;
 *   RESOURCE_EXHAUSTED is a refusal (nothing processed), except the client's own read limit tripping on an
 *   answer, which is an ambiguous `RESPONSE_TOO_LARGE` (ADR 0069); UNAVAILABLE, CANCELLED, DEADLINE_EXCEEDED and
 *   the rest say nothing of what ran after the request was written: ambiguous.
 * - UNAUTHENTICATED, with or without ErrorInfo, is noted as answered with HTTP 401: the status of the call itself
 *   refuses the credential before anything runs, so a provider's credential is refreshed and the call resent
 *   once, as after a 401 (ADR 0079, ADR 0112).
 * The caller's abort and the client's own timers are the attempt's to translate, before this is asked.
 */
import type { Metadata } from '@grpc/grpc-js';
import {
  A2AError,
  ERROR_INFO_TYPE,
  InvalidParamsError,
  PermissionDeniedError,
  TaskNotFoundError,
  UnauthenticatedError,
  UnsupportedOperationError,
  type GrpcStatusName,
} from '../../protocol/errors.js';
import { fromRestError } from '../../protocol/error-wire.js';
import {
  GRPC_METADATA,
  decodeGrpcStatus,
  grpcCodeName,
  type GrpcCodeName,
} from '../../protocol/grpc/index.js';
import { answeredWith } from '../transport/failure-kind.js';
import { TransportError } from '../transport/transport-error.js';
import { metadataValue } from './grpc-metadata.js';

/** What grpc-js reports of a failed call (`ServiceError` / `StatusObject`). */
export interface GrpcStatusLike {
  readonly code: number;
  readonly details: string;
  readonly metadata?: Metadata | undefined;
}

/** The HTTP status the REST binding would have answered, for an error of a reason this client does not know. */
const HTTP_OF: Partial<Record<GrpcCodeName, number>> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  UNIMPLEMENTED: 400,
  OUT_OF_RANGE: 400,
  NOT_FOUND: 404,
  ALREADY_EXISTS: 409,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  RESOURCE_EXHAUSTED: 429,
  UNAVAILABLE: 503,
};

/** Status codes that name an A2A error without ErrorInfo (the v1.0.0 forms, and bare grpc-js refusals). */
const BARE_ERRORS: Partial<Record<GrpcCodeName, new (o: { message: string }) => A2AError>> = {
  NOT_FOUND: TaskNotFoundError,
  UNIMPLEMENTED: UnsupportedOperationError,
  INVALID_ARGUMENT: InvalidParamsError,
  UNAUTHENTICATED: UnauthenticatedError,
  PERMISSION_DENIED: PermissionDeniedError,
};

/** Codes after which the request may have been processed: the transport failed, or the server did. */
const AMBIGUOUS: Partial<Record<GrpcCodeName, 'UNAVAILABLE' | 'DEADLINE_EXCEEDED' | 'GRPC_ERROR'>> = {
  UNAVAILABLE: 'UNAVAILABLE',
  DEADLINE_EXCEEDED: 'DEADLINE_EXCEEDED',
  CANCELLED: 'GRPC_ERROR',
  UNKNOWN: 'GRPC_ERROR',
  INTERNAL: 'GRPC_ERROR',
  ABORTED: 'GRPC_ERROR',
  DATA_LOSS: 'GRPC_ERROR',
};

/** grpc-js's words when a message is past `grpc.max_receive_message_length`. */
const TOO_LARGE = /^Received message larger than max/;

/** The details of a Status trailer, or undefined when there is none or it cannot be read. */
function detailsOf(md: Metadata | undefined): unknown[] | undefined {
  const bin = md?.get(GRPC_METADATA.statusDetails)[0];
  if (!(bin instanceof Uint8Array) || bin.length === 0) return undefined;
  try {
    return decodeGrpcStatus(bin).details;
  } catch {
    return undefined; // an unreadable trailer: the code decides
  }
}

function hasErrorInfo(details: unknown[] | undefined): boolean {
  return (details ?? []).some(
    (d) =>
      typeof d === 'object' &&
      d !== null &&
      (d as Record<string, unknown>)['@type'] === ERROR_INFO_TYPE &&
      typeof (d as Record<string, unknown>).reason === 'string',
  );
}

/** `retry-after` in whole seconds, as the server's trailer gives it (ADR 0109). */
function retryAfterSecondsOf(md: Metadata | undefined): number | undefined {
  const v = metadataValue(md, 'retry-after');
  if (v === undefined || !/^\d{1,9}$/.test(v.trim())) return undefined;
  return Number(v.trim());
}

/** An error of a status this client knows no A2A error for: definite, keeping what the peer said. */
function unnamedError(status: GrpcCodeName, message: string): A2AError {
  return new A2AError(
    {
      name: 'A2AError',
      code: -32603,
      httpStatus: HTTP_OF[status] ?? 500,
      // The peer's code, kept as it said it (outside the A2A table's names: OUT_OF_RANGE, ALREADY_EXISTS, …).
      grpcStatus: status as GrpcStatusName,
      reason: 'UNKNOWN',
      domain: '',
      defaultMessage: message,
    },
    { message },
  );
}

/**
 * The error a failed call stands for. `answered`: the peer's response headers had arrived (a too-large message is
 * then the client's own read limit, not the peer's refusal of the request); `limitBytes`: that limit.
 */
export function grpcFailure(status: GrpcStatusLike, answered: boolean, limitBytes: number): unknown {
  const name = grpcCodeName(status.code);
  const message = status.details || `gRPC status ${name}`;
  const details = detailsOf(status.metadata);
  const retryAfterSeconds = retryAfterSecondsOf(status.metadata);
  let err: unknown;
  if (hasErrorInfo(details)) {
    err = fromRestError(
      HTTP_OF[name] ?? 500,
      { error: { message, status: name, details } },
      retryAfterSeconds,
    );
  } else if (BARE_ERRORS[name] !== undefined) {
    err = new BARE_ERRORS[name]({ message });
  } else if (name === 'RESOURCE_EXHAUSTED') {
    err =
      answered && TOO_LARGE.test(status.details)
        ? new TransportError(
            'ambiguous',
            'RESPONSE_TOO_LARGE',
            `an answer larger than the client's limit of ${limitBytes} bytes (maxResponseBytes): ${status.details}`,
            { limitBytes },
          )
        : new TransportError(
            'refused',
            'RATE_LIMITED',
            `the peer refused the call (RESOURCE_EXHAUSTED: ${message})`,
            {
              ...(retryAfterSeconds !== undefined ? { retryAfterMs: retryAfterSeconds * 1000 } : {}),
            },
          );
  } else if (AMBIGUOUS[name] !== undefined) {
    err = new TransportError(
      'ambiguous',
      AMBIGUOUS[name],
      `the call failed after the request was sent (${name}: ${message})`,
      { ...(retryAfterSeconds !== undefined ? { retryAfterMs: retryAfterSeconds * 1000 } : {}) },
    );
  } else {
    err = unnamedError(name, message);
  }
  // The call's own status refused the credential: nothing ran (ADR 0112).
  if (name === 'UNAUTHENTICATED' && err instanceof A2AError) answeredWith(err, 401);
  return err;
}
