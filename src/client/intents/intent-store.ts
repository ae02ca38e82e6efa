/**
 * Durable send intent (docs/semantics.md §7, ADR 0022: the intent persists before sending): the client records a
 * keyed send (key and whole request) before its first attempt and marks it settled when a definite answer
 * arrives. A send a crash left pending is resent after restart with the same key, so the peer replays it
 * instead of running it again.
 *
 * An intent is named by its agent, its tenant and its key (`intent-identity.ts`, ADR 0067): the same key sent
 * to another agent or tenant is another send, recorded, settled and recovered on its own.
 *
 * An intent store holds keys in clear, because resending needs them: protect it like a credential store.
 */
import type { SendMessageRequest } from '../../protocol/requests.js';
import { identityText, intentIdentityOf } from './intent-identity.js';
import type { IntentIdentity } from './intent-identity.js';

/** A recorded keyed send. */
export interface SendIntent {
  /** The idempotency key (also in `request.message.metadata`). */
  readonly key: string;
  /** The message's id. */
  readonly messageId: string;
  /** Which agent (its card URL, or an endpoint URL and tenant), so a client recovers only its agent's intents. */
  readonly target: string;
  /**
   * The request as sent, with `tenant` when the interface the send was bound to has one: a key is scoped to its
   * tenant, so recovery resends only to that tenant (ADR 0034).
   */
  readonly request: SendMessageRequest;
  /** Whether it was sent as a stream (recovery resends it as a blocking send either way). */
  readonly streaming: boolean;
  /** Epoch ms of recording. */
  readonly createdAt: number;
}

/** How an intent was settled. */
export type IntentOutcome =
  /** The peer answered: a task (with its id) or a message. */
  | { readonly status: 'answered'; readonly taskId?: string }
  /** The peer refused with an A2A error: a definite answer, nothing to resend. */
  | { readonly status: 'rejected'; readonly reason: string }
  /** Every attempt certainly failed to reach the peer: nothing ran. */
  | { readonly status: 'not-sent' };

/**
 * Where intents live. Implementations must make `record` durable before it resolves. Every method names an
 * intent by its identity (`intentIdentityOf`): target, tenant (`request.tenant`, absent and `''` alike) and key.
 */
export interface IntentStore {
  /** Records an intent. Recording an identity already recorded (pending or settled) keeps the first record. */
  record(intent: SendIntent): Promise<void>;
  /** Marks the intent of `identity` settled; a settled or unknown identity is ignored. */
  settle(identity: IntentIdentity, outcome: IntentOutcome): Promise<void>;
  /** Intents not yet settled, oldest first; only those of `target` (every tenant of it) when given. */
  pending(target?: string): Promise<SendIntent[]>;
}

/** An in-process intent store: survives nothing, but lets a long-lived process recover within itself. */
export class MemoryIntentStore implements IntentStore {
  private readonly open = new Map<string, SendIntent>();
  private readonly done = new Map<string, IntentOutcome>();

  /** Records an intent (first record per identity wins). */
  record(intent: SendIntent): Promise<void> {
    const id = identityText(intentIdentityOf(intent));
    if (!this.open.has(id) && !this.done.has(id)) this.open.set(id, structuredClone(intent));
    return Promise.resolve();
  }

  /** Settles the intent of `identity`. */
  settle(identity: IntentIdentity, outcome: IntentOutcome): Promise<void> {
    const id = identityText(identity);
    if (this.open.delete(id)) this.done.set(id, outcome);
    return Promise.resolve();
  }

  /** Pending intents, oldest first. */
  pending(target?: string): Promise<SendIntent[]> {
    const all = [...this.open.values()].filter((i) => target === undefined || i.target === target);
    return Promise.resolve(all.sort((a, b) => a.createdAt - b.createdAt).map((i) => structuredClone(i)));
  }

  /** How the intent of `identity` was settled, if it was (for tests and diagnostics). */
  outcomeOf(identity: IntentIdentity): IntentOutcome | undefined {
    return this.done.get(identityText(identity));
  }
}
