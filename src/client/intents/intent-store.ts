/**
 * Durable send intent (docs/semantics.md §7, ADR 0022: the intent persists before sending): the client records a
 * keyed send (key and whole request) before its first attempt and marks it settled when a definite answer
 * arrives. A send a crash left pending is resent after restart with the same key, so the peer replays it
 * instead of running it again.
 *
 * An intent store holds keys in clear, because resending needs them: protect it like a credential store.
 */
import type { SendMessageRequest } from '../../protocol/requests.js';

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

/** Where intents live. Implementations must make `record` durable before it resolves. */
export interface IntentStore {
  /** Records an intent. Recording a key that is already recorded keeps the first record. */
  record(intent: SendIntent): Promise<void>;
  /** Marks an intent settled; a settled or unknown key is ignored. */
  settle(key: string, outcome: IntentOutcome): Promise<void>;
  /** Intents not yet settled, oldest first; only those of `target` when given. */
  pending(target?: string): Promise<SendIntent[]>;
}

/** An in-process intent store: survives nothing, but lets a long-lived process recover within itself. */
export class MemoryIntentStore implements IntentStore {
  private readonly open = new Map<string, SendIntent>();
  private readonly done = new Map<string, IntentOutcome>();

  /** Records an intent (first record wins). */
  record(intent: SendIntent): Promise<void> {
    if (!this.open.has(intent.key) && !this.done.has(intent.key))
      this.open.set(intent.key, structuredClone(intent));
    return Promise.resolve();
  }

  /** Settles an intent. */
  settle(key: string, outcome: IntentOutcome): Promise<void> {
    if (this.open.delete(key)) this.done.set(key, outcome);
    return Promise.resolve();
  }

  /** Pending intents, oldest first. */
  pending(target?: string): Promise<SendIntent[]> {
    const all = [...this.open.values()].filter((i) => target === undefined || i.target === target);
    return Promise.resolve(all.sort((a, b) => a.createdAt - b.createdAt).map((i) => structuredClone(i)));
  }

  /** How an intent was settled, if it was (for tests and diagnostics). */
  outcomeOf(key: string): IntentOutcome | undefined {
    return this.done.get(key);
  }
}
