/**
 * An A2AError as a gRPC status (A2A §10.6, v1.0.1 codes): the code, the message, and the binary
 * `google.rpc.Status` with its ErrorInfo in the `grpc-status-details-bin` trailer; an UNAUTHENTICATED answer
 * also carries the challenge (`www-authenticate`), and a retryable refusal `retry-after`, as HTTP does.
 */
import { Metadata, type ServiceError } from '@grpc/grpc-js';
import type { A2AError } from '../../protocol/errors.js';
import { GRPC_METADATA, encodeGrpcStatus, grpcStatusOf } from '../../protocol/grpc/index.js';
import { challengeOf, type RequestAuth } from '../auth/request-auth.js';

/** The ServiceError grpc-js sends for `err`, its trailers starting from `trailers`. */
export function serviceErrorOf(
  err: A2AError,
  auth: RequestAuth | undefined,
  trailers = new Metadata(),
): ServiceError {
  const status = grpcStatusOf(err);
  trailers.set(GRPC_METADATA.statusDetails, Buffer.from(encodeGrpcStatus(status)));
  if (err.grpcStatus === 'UNAUTHENTICATED') {
    const challenge = challengeOf(auth);
    if (challenge !== undefined) trailers.set('www-authenticate', challenge);
  }
  if (err.retryAfterSeconds !== undefined) trailers.set('retry-after', String(err.retryAfterSeconds));
  const error: ServiceError = Object.assign(new Error(err.message), {
    code: status.code,
    details: err.message,
    metadata: trailers,
  });
  return error;
}
