/**
 * Local errors of the client that are neither wire errors nor transport failures: a card with no interface we
 * can use, or a call the client refuses before sending, such as a keyed send its outbox could not record (CONVENTIONS: local errors carry string codes).
 */

/** Why the client refused. */
export type ClientErrorCode =
  | 'NO_USABLE_INTERFACE'
  | 'NO_AGENT_CARD'
  | 'INVALID_ARGUMENT'
  /** The intent store failed to record a keyed send before its first attempt: nothing was sent (ADR 0068). */
  | 'INTENT_NOT_RECORDED';

const BRAND = Symbol.for('a2a-once.ClientError');

/** A local refusal by the client. */
export class ClientError extends Error {
  /** A stable string code. */
  readonly code: ClientErrorCode;

  constructor(code: ClientErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ClientError';
    this.code = code;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** Brand check, so `instanceof` survives duplicated module copies. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && BRAND in value;
  }
}
