/**
 * Local errors of the client that are neither wire errors nor transport failures: a card with no interface we
 * can use, or a call the client refuses before sending (CONVENTIONS: local errors carry string codes).
 */

/** Why the client refused. */
export type ClientErrorCode =
  'NO_USABLE_INTERFACE' | 'NO_AGENT_CARD' | 'INVALID_ARGUMENT' | 'CARD_NOT_TRUSTED';

const BRAND = Symbol.for('a2a-once.ClientError');

/** A local refusal by the client. */
export class ClientError extends Error {
  /** A stable string code. */
  readonly code: ClientErrorCode;

  constructor(code: ClientErrorCode, message: string) {
    super(message);
    this.name = 'ClientError';
    this.code = code;
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** Brand check, so `instanceof` survives duplicated module copies. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && BRAND in value;
  }
}
