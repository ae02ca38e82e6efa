/**
 * What an answer, or its absence, says about whether the call ran (docs/semantics.md §7, ADR 0020): the kind the retry
 * policy and the end of a send reason about.
 * - A `TransportError` carries its kind.
 * - An A2A error answer is definite, except where it says the server failed while handling the call: INTERNAL
 *   and UNAVAILABLE (the server-busy error, or any error with those gRPC statuses) are ambiguous, because the
 *   server may have admitted and run the call before failing. The capacity refusal says nothing ran: refused.
 * - An HTTP status classifies by itself only where the body cannot be trusted to: 429 refuses; 502 and 504 come
 *   from a gateway that may have forwarded; a 503 is ambiguous unless its A2A body says nothing ran (a proxy
 *   that reset an upstream which already had the request answers a bare 503).
 */
import { A2AError } from '../../protocol/errors.js';
import { retryAfterOf } from './retry-after.js';
import { TransportError } from './transport-error.js';
import type { FailureKind } from './transport-error.js';

/**
 * The reasons of A2A errors that refuse before anything runs: the key index at its cap (docs/semantics.md §2),
 * and a server draining for shutdown. Servers of this version still say IDEMPOTENCY_CAPACITY when draining, which
 * every client released so far reads as refused; SERVER_DRAINING is read here first so that a later server can
 * say what it means (ADR 0088).
 */
const NOTHING_RAN_REASONS: ReadonlySet<string> = new Set(['IDEMPOTENCY_CAPACITY', 'SERVER_DRAINING']);

/** Raised by this client about a complete answer it could not read: that answer was definite (ADR 0020). */
const OUR_OWN_REASON = 'INVALID_AGENT_RESPONSE';

/** What an A2A error answer says about whether the call ran. */
function answerKind(err: A2AError): FailureKind | 'definite' {
  if (err.reason !== undefined && NOTHING_RAN_REASONS.has(err.reason)) return 'refused';
  if (err.reason === OUR_OWN_REASON) return 'definite';
  return err.grpcStatus === 'INTERNAL' || err.grpcStatus === 'UNAVAILABLE' ? 'ambiguous' : 'definite';
}

/** The kind of an error for the retry decision: a failure kind, or `definite` (an answer; never retried). */
export function failureKindOf(err: unknown): FailureKind | 'definite' {
  if (err instanceof TransportError) return err.kind;
  if (err instanceof A2AError) return answerKind(err);
  return 'definite';
}

/**
 * The transport-level failure an HTTP status means by itself, or undefined when the body decides. `cause` is
 * the A2A error the body carried, if any: it decides whether a 503 said nothing ran, and surfaces when retries
 * run out.
 */
export function statusFailure(res: Response, cause?: A2AError): TransportError | undefined {
  const opts = { httpStatus: res.status, retryAfterMs: retryAfterOf(res), cause };
  switch (res.status) {
    case 429:
      // Too Many Requests is a refusal by definition (RFC 6585): no proxy turns a forwarded call into one.
      return new TransportError('refused', 'RATE_LIMITED', 'the peer refused the request (HTTP 429)', opts);
    case 503:
      if (cause !== undefined && answerKind(cause) === 'refused')
        return new TransportError('refused', 'UNAVAILABLE', 'the peer refused the request (HTTP 503)', opts);
      return new TransportError(
        'ambiguous',
        'UNAVAILABLE',
        'the peer or a proxy was unavailable, maybe after the request arrived (HTTP 503)',
        opts,
      );
    case 502:
      return new TransportError(
        'ambiguous',
        'BAD_GATEWAY',
        'a gateway failed after forwarding (HTTP 502)',
        opts,
      );
    case 504:
      return new TransportError('ambiguous', 'GATEWAY_TIMEOUT', 'a gateway timed out (HTTP 504)', opts);
    default:
      return undefined;
  }
}

/*
 * The HTTP status an error answer actually arrived with, kept beside the error (an `A2AError`'s own `httpStatus`
 * is its type's, from the spec's table, whatever the wire said). The 401 resend of an unkeyed send needs the
 * wire's: only a real 401 says "not applied" (RFC 9110 §15.5.2), while an UNAUTHENTICATED error inside a JSON-RPC
 * 200 envelope says nothing about what ran before it (ADR 0079).
 */
const statuses = new WeakMap<object, number>();

/** Notes the status `err` was answered with, and returns `err`. */
export function answeredWith<E extends object>(err: E, status: number): E {
  statuses.set(err, status);
  return err;
}

/** The HTTP status an error answer arrived with, when a transport noted it. */
export function answeredStatusOf(err: unknown): number | undefined {
  return typeof err === 'object' && err !== null ? statuses.get(err) : undefined;
}
