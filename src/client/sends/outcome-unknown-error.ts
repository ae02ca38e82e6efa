/**
 * The error a send ends with when the client cannot know whether the peer ran it (docs/semantics.md §7): an ambiguous
 * failure against a peer that does not honour keys (so a resend could run it twice), or retries exhausted
 * against one that does. It carries what a caller needs to recover by hand: the key (resend with it to a peer
 * that honours keys, or look for the task), the messageId, and the task id when a stream had already named it.
 */
import { keyHash } from '../../idempotency/index.js';

const BRAND = Symbol.for('a2a-once.OutcomeUnknownError');

/** Options of an OutcomeUnknownError. */
export interface OutcomeUnknownOptions {
  readonly messageId: string;
  readonly key?: string | undefined;
  readonly taskId?: string | undefined;
  /** Whether the peer is known to honour keys (then a later resend with `key` is safe). */
  readonly peerHonoursKeys: boolean;
  /** The peer answered, but with something this client cannot read (ADR 0068). */
  readonly answerUnreadable?: boolean;
  readonly cause?: unknown;
}

/** A send whose outcome is unknown: it may or may not have run. */
export class OutcomeUnknownError extends Error {
  /** A stable string code. */
  readonly code = 'OUTCOME_UNKNOWN';
  /** The messageId of the message sent. */
  readonly messageId: string;
  /** The task, when the peer had already named it (a stream's first event). */
  readonly taskId: string | undefined;
  /** A short hash of the key, safe to log. */
  readonly keyHash: string | undefined;
  /** Whether resending with `key` is safe. */
  readonly peerHonoursKeys: boolean;
  /**
   * Whether the peer answered with something this client cannot read (a newer task state, a field of another
   * shape): it may have run the send, and a resend would most likely get the same answer (ADR 0068).
   */
  readonly answerUnreadable: boolean;
  /**
   * The idempotency key, for recovery. Not enumerable, so `JSON.stringify` and `util.inspect` of the error leave
   * it out: a key is a handle to a task and never goes into logs in clear (docs/semantics.md §1).
   */
  declare readonly key: string | undefined;

  constructor(options: OutcomeUnknownOptions) {
    const hash = options.key === undefined ? undefined : keyHash(options.key);
    const keyText = hash === undefined ? 'no idempotency key' : `key #${hash}`;
    const resend =
      options.peerHonoursKeys && options.key !== undefined
        ? 'resending with the same key is safe'
        : options.peerHonoursKeys
          ? 'it had no key, so it was not resent'
          : 'the peer does not honour idempotency keys, so it was not resent';
    const why = options.answerUnreadable
      ? 'the peer answered, but this client cannot read the answer'
      : options.peerHonoursKeys && options.key !== undefined
        ? 'retries exhausted'
        : 'no definite answer';
    super(
      `outcome unknown for message ${options.messageId} (${keyText}${options.taskId ? `, task ${options.taskId}` : ''}): ` +
        `${why}, so the send may have run; ${resend}`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'OutcomeUnknownError';
    this.messageId = options.messageId;
    this.taskId = options.taskId;
    this.keyHash = hash;
    this.peerHonoursKeys = options.peerHonoursKeys;
    this.answerUnreadable = options.answerUnreadable === true;
    Object.defineProperty(this, 'key', { value: options.key, enumerable: false });
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** Brand check, so `instanceof` survives duplicated module copies. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && BRAND in value;
  }
}
