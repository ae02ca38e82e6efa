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
   * The idempotency key, for recovery. Not enumerable, so `JSON.stringify` and `util.inspect` of the error leave
   * it out: a key is a handle to a task and never goes into logs in clear (docs/semantics.md §1).
   */
  declare readonly key: string | undefined;

  constructor(options: OutcomeUnknownOptions) {
    const hash = options.key === undefined ? undefined : keyHash(options.key);
    const keyText = hash === undefined ? 'no idempotency key' : `key #${hash}`;
    const how = options.peerHonoursKeys
      ? 'retries exhausted; resending with the same key is safe'
      : 'the peer does not honour idempotency keys, so it was not resent';
    super(
      `outcome unknown for message ${options.messageId} (${keyText}${options.taskId ? `, task ${options.taskId}` : ''}): ${how}`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'OutcomeUnknownError';
    this.messageId = options.messageId;
    this.taskId = options.taskId;
    this.keyHash = hash;
    this.peerHonoursKeys = options.peerHonoursKeys;
    Object.defineProperty(this, 'key', { value: options.key, enumerable: false });
    Object.defineProperty(this, BRAND, { value: true });
  }

  /** Brand check, so `instanceof` survives duplicated module copies. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null && BRAND in value;
  }
}
