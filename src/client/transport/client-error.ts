/**
 * Local errors of the client that are neither wire errors nor transport failures: a card with no interface we
 * can use, an operation the agent's version lacks, a card too large to read, a redirect the client will not follow, or a call the client refuses before
 * sending, such as a keyed send its outbox could not record or a credential it could not get (CONVENTIONS: local
 * errors carry string codes). Each is definite: it is never retried.
 */

/** Why the client refused. */
export type ClientErrorCode =
  | 'NO_USABLE_INTERFACE'
  | 'NO_AGENT_CARD'
  | 'INVALID_ARGUMENT'
  | 'RESPONSE_TOO_LARGE'
  | 'REDIRECT_REFUSED'
  /** A card whose signature the client was told to require did not verify (ADR 0073). */
  | 'CARD_NOT_TRUSTED'
  /** The intent store failed to record a keyed send before its first attempt: nothing was sent (ADR 0068). */
  | 'INTENT_NOT_RECORDED'
  /** A credential (given, or returned by a provider) that cannot be sent: wrong shape, empty, a control character (ADR 0079). */
  | 'INVALID_CREDENTIAL'
  /** The credential provider failed before the attempt: nothing was sent (ADR 0079). */
  | 'CREDENTIAL_UNAVAILABLE'
  /** The OAuth 2 token endpoint refused, failed or gave an unusable answer: nothing was sent (ADR 0080). */
  | 'TOKEN_REQUEST_FAILED'
  /** A scheme-agnostic `{ token }` for a card whose security schemes cannot carry one (ADR 0079). */
  | 'NO_USABLE_SECURITY_SCHEME'
  /** An operation the agent's protocol version has no method for, such as ListTasks in v0.3 (ADR 0103). */
  | 'OPERATION_NOT_IN_VERSION';

/** What a ClientError can name besides its code. */
export interface ClientErrorDetails {
  /** The read limit that was exceeded (`RESPONSE_TOO_LARGE`), in bytes. */
  readonly limitBytes?: number;
  /** Where the refused redirect pointed (`REDIRECT_REFUSED`), when the peer said. */
  readonly location?: string;
  /** The HTTP status of the answer refused. */
  readonly httpStatus?: number;
  /** What caused the refusal (the intent store's error, for `INTENT_NOT_RECORDED`). */
  readonly cause?: unknown;
}

const BRAND = Symbol.for('a2a-once.ClientError');

/** A local refusal by the client. */
export class ClientError extends Error {
  /** A stable string code. */
  readonly code: ClientErrorCode;
  /** The read limit that was exceeded (`RESPONSE_TOO_LARGE`), in bytes. */
  readonly limitBytes: number | undefined;
  /** Where the refused redirect pointed (`REDIRECT_REFUSED`). */
  readonly location: string | undefined;
  /** The HTTP status of the answer refused, when one arrived. */
  readonly httpStatus: number | undefined;

  constructor(code: ClientErrorCode, message: string, details: ClientErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = 'ClientError';
    this.code = code;
    this.limitBytes = details.limitBytes;
    this.location = details.location;
    this.httpStatus = details.httpStatus;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** Brand check, so `instanceof` survives duplicated module copies. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && BRAND in value;
  }
}
