/**
 * What `delegate` needs of the client an agent passes in: the server never imports the client (layers only look
 * down), so it states the operations it uses and `A2AClient` from `a2a-once/client` fits them as it is.
 */
import type { Message, SendMessageResponse, Task } from '../protocol/model.js';

/** Per-call options the delegation passes. */
export interface PeerCallOptions {
  readonly headers?: Readonly<Record<string, string>>;
  readonly extensions?: readonly string[];
  readonly signal?: AbortSignal;
}

/** A client of the child agent. */
export interface DelegationPeer {
  /** Whether the child's card advertises the idempotency extension (or the caller asserted it). */
  readonly peerHonoursKeys: boolean;
  /**
   * SendMessage once: `key` is the idempotency key (false: unkeyed). The client resends a keyed send to an
   * honouring peer with the same key after an ambiguous failure; it throws an error whose `code` is
   * `OUTCOME_UNKNOWN` when the send may have run and cannot be resent.
   */
  send(
    message: Message,
    options: PeerCallOptions & { key: string | false; configuration: { returnImmediately: boolean } },
  ): Promise<SendMessageResponse>;
  getTask(id: string, options?: PeerCallOptions): Promise<Task>;
  cancelTask(id: string): Promise<Task>;
}
