/**
 * Failures below the A2A layer, classified as docs/semantics.md §7 says:
 * - **not sent**: the request never left (connection refused, DNS). Always safe to retry.
 * - **refused**: the peer answered "not now" before doing anything (HTTP 429, 503, or an idempotency-capacity
 *   refusal). Safe to retry after `Retry-After`.
 * - **ambiguous**: the request may have been processed (timeout, reset after writing, 502, 504, a body that
 *   fails to arrive or parse, a stream cut before its end). Safe to retry only for reads, and for keyed sends
 *   to a peer that honours keys. An answer larger than the client's read limit is ambiguous too (it arrived:
 *   the call ran, or may have), but repeating the call would bring it back as large, so it is not retried
 *   (`RESPONSE_TOO_LARGE`, ADR 0069).
 *
 * A local error with a string `code` (CONVENTIONS: wire errors have numeric codes, local ones string codes).
 * An A2A error answer is never a TransportError: it is a definite answer and arrives as an `A2AError`.
 */

/** The three kinds of failure of docs/semantics.md §7. */
export type FailureKind = 'not-sent' | 'refused' | 'ambiguous';

/** Why a transport attempt failed. */
export type TransportErrorCode =
  | 'CONNECTION_REFUSED'
  | 'DNS'
  | 'CONNECT_TIMEOUT'
  | 'RATE_LIMITED'
  | 'UNAVAILABLE'
  | 'TIMEOUT'
  | 'DEADLINE_EXCEEDED'
  | 'CONNECTION_RESET'
  | 'BAD_GATEWAY'
  | 'GATEWAY_TIMEOUT'
  | 'HTTP_ERROR'
  | 'BAD_BODY'
  | 'STREAM_CUT'
  | 'RESPONSE_TOO_LARGE'
  /** A gRPC status that carried no A2A error and says nothing of what ran (UNKNOWN, INTERNAL, CANCELLED, …). */
  | 'GRPC_ERROR';

const BRAND = Symbol.for('a2a-once.TransportError');

/** Options of a TransportError. */
export interface TransportErrorOptions {
  readonly httpStatus?: number;
  readonly retryAfterMs?: number;
  /** The read limit an answer exceeded (`RESPONSE_TOO_LARGE`), in bytes. */
  readonly limitBytes?: number;
  readonly cause?: unknown;
}

/** A failure to get a definite answer from the peer. */
export class TransportError extends Error {
  /** Not sent, refused up front, or ambiguous. */
  readonly kind: FailureKind;
  /** A stable string code. */
  readonly code: TransportErrorCode;
  /** HTTP status when one arrived. */
  readonly httpStatus: number | undefined;
  /** The peer's `Retry-After`, in ms, when it sent one (`Infinity`: a wait too long to express). */
  readonly retryAfterMs: number | undefined;
  /** The read limit the answer exceeded (`RESPONSE_TOO_LARGE`), in bytes. */
  readonly limitBytes: number | undefined;

  constructor(
    kind: FailureKind,
    code: TransportErrorCode,
    message: string,
    options: TransportErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'TransportError';
    this.kind = kind;
    this.code = code;
    this.httpStatus = options.httpStatus;
    this.retryAfterMs = options.retryAfterMs;
    this.limitBytes = options.limitBytes;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** Brand check, so `instanceof` survives duplicated module copies. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && BRAND in value;
  }
}

// Failures at connect time: the request was never written (docs/semantics.md §7 "not sent").
const NOT_SENT_CODES: ReadonlyMap<string, TransportErrorCode> = new Map([
  ['ECONNREFUSED', 'CONNECTION_REFUSED'],
  ['ENOTFOUND', 'DNS'],
  ['EAI_AGAIN', 'DNS'],
  ['EAI_NONAME', 'DNS'],
  ['EHOSTUNREACH', 'CONNECTION_REFUSED'],
  ['ENETUNREACH', 'CONNECTION_REFUSED'],
  ['UND_ERR_CONNECT_TIMEOUT', 'CONNECT_TIMEOUT'],
]);

function codeOf(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** Every error code in a cause chain, including the members of an AggregateError (happy-eyeballs connects). */
function causeCodes(err: unknown, depth = 0): string[] {
  if (typeof err !== 'object' || err === null || depth > 5) return [];
  const own = codeOf(err);
  const out = own === undefined ? [] : [own];
  const errors = (err as { errors?: unknown }).errors;
  if (Array.isArray(errors)) for (const e of errors as unknown[]) out.push(...causeCodes(e, depth + 1));
  return [...out, ...causeCodes((err as { cause?: unknown }).cause, depth + 1)];
}

/** What a not-sent failure says happened, in words: the code alone means little to a reader. */
const NOT_SENT_WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'the connection was refused: is the agent running, on this port?',
  ENOTFOUND: 'the host name is not known',
  EAI_AGAIN: 'the host name could not be looked up',
  EAI_NONAME: 'the host name is not known',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connecting timed out',
};

/** A URL as an error may show it: origin and path, without user info or query (either may hold a secret). */
function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(an unparsable URL)';
  }
}

/**
 * undici refuses a port browsers block (1, 9, 25, 6000, …) before connecting, with a cause that has no code,
 * only this message: nothing was sent.
 */
function isBadPort(err: unknown): boolean {
  const cause = typeof err === 'object' && err !== null ? (err as { cause?: unknown }).cause : undefined;
  return cause instanceof Error && cause.message === 'bad port';
}

/**
 * Classifies an error thrown by `fetch` (or by reading its body). Only failures that show the connection was
 * never made are "not sent"; everything else may have reached the peer and is ambiguous. `url`, when given,
 * is named in the message: a refused connection says where it was refused.
 */
export function classifyFetchError(err: unknown, url?: string): TransportError {
  const to = url === undefined ? '' : ` to ${shownUrl(url)}`;
  if (isBadPort(err))
    return new TransportError(
      'not-sent',
      'CONNECTION_REFUSED',
      `request${to} not sent: fetch does not connect to this port (one browsers block); use another port`,
      { cause: err },
    );
  const codes = causeCodes(err);
  const first = codes[0];
  if (first !== undefined && codes.every((c) => NOT_SENT_CODES.has(c))) {
    const words = NOT_SENT_WORDS[first];
    return new TransportError(
      'not-sent',
      NOT_SENT_CODES.get(first)!,
      `request${to} not sent (${first})${words === undefined ? '' : `: ${words}`}`,
      { cause: err },
    );
  }
  const detail = first ?? (err instanceof Error ? err.message : String(err));
  return new TransportError(
    'ambiguous',
    'CONNECTION_RESET',
    `connection${to} failed after the request was sent (${detail})`,
    { cause: err },
  );
}
