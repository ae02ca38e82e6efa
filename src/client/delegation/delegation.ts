/**
 * Delegation for code that is not an agent (ADR 0040), in the spirit of a2a-rust's `Delegation::start`,
 * `start_leased` and `start_budgeted`: send one child message, keyed once when the peer honours keys (the client's
 * retry resends it with that key after an ambiguous failure, docs/semantics.md §7), and watch the child through a
 * `DelegationHandle`. An agent delegates with `delegate` from `a2a-once/server`, which also records the key as a
 * durable step so a resumed agent reaches the same child.
 */
import { keyOf, mintKey } from '../../idempotency/index.js';
import { OutcomeUnknownError } from '../sends/outcome-unknown-error.js';
import { toMessage, type MessageInput } from '../sends/send-options.js';
import type { CallOptions } from '../connection/call-options.js';
import {
  DelegationHandle,
  withDelegationLimits,
  type DelegationLimits,
  type DelegationPeer,
  type WatchOptions,
} from '../../delegation/index.js';

/** Options of a delegation. */
export interface DelegationOptions extends Omit<WatchOptions, 'leaseMs'>, DelegationLimits {
  /** Options of the send itself (signal, time limits). */
  readonly call?: CallOptions;
}

/** Starting delegations. */
export const Delegation = {
  /**
   * Sends `message` to the child and returns its handle. Keyed with a fresh key when the peer honours keys (a key
   * already in the message is kept). A send whose answer was lost and that cannot be resent safely (an unkeyed
   * send, or a keyed one past its retries) gives a handle whose outcome is `lost`; a refusal is thrown.
   */
  async start(
    client: DelegationPeer,
    message: MessageInput,
    options: DelegationOptions = {},
  ): Promise<DelegationHandle> {
    const limits: DelegationLimits = {
      ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
      ...(options.deadline !== undefined ? { deadline: options.deadline } : {}),
    };
    const msg = withDelegationLimits(toMessage(message), limits);
    const key = keyOf(msg) ?? (client.peerHonoursKeys ? mintKey() : undefined);
    let answer;
    try {
      answer = await client.send(msg, {
        ...options.call,
        key: key ?? false,
        configuration: { returnImmediately: true },
      });
    } catch (err) {
      if (err instanceof OutcomeUnknownError) {
        // Keyed: resending the same message (same key) later reaches the same child. Unkeyed: nothing can.
        const reason =
          key === undefined
            ? `the send's answer was lost and it cannot be resent safely: ${err.message}`
            : `the send's outcome is still unknown after the client's retries; resend the same message (key ${err.keyHash ?? ''}) to reach the same child: ${err.message}`;
        return DelegationHandle.settled(err.taskId, { status: 'lost', reason });
      }
      throw err;
    }
    if ('message' in answer)
      return DelegationHandle.settled(undefined, { status: 'completed', message: answer.message });
    return DelegationHandle.watching(client, answer.task, { ...options, ...limits });
  },

  /** `start` with a lease: the child cancels itself when the parent stops renewing it for `leaseMs`. */
  startLeased(
    client: DelegationPeer,
    message: MessageInput,
    options: DelegationOptions & { readonly leaseMs: number },
  ): Promise<DelegationHandle> {
    return Delegation.start(client, message, options);
  },

  /** `start` with a budget: the child fails once `deadline` (epoch ms) passes before it finished. */
  startBudgeted(
    client: DelegationPeer,
    message: MessageInput,
    options: DelegationOptions & { readonly deadline: number },
  ): Promise<DelegationHandle> {
    return Delegation.start(client, message, options);
  },
};
