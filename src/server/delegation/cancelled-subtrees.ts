/**
 * The subtrees this server knows were cancelled (ADR 0062). A cancel cascades down a delegation tree one hop per
 * round trip (a parent cancels the children it holds handles on), and a tree still growing at its tip (a loop
 * between two agents, say) grows as fast as that: the cascade would chase the tip for ever. So a server that
 * cancels a task, or hears that one was cancelled, remembers the task's token and
 *
 * - refuses every later send whose `ancestors` hold it (`DELEGATION_CANCELLED`): nothing new starts below it here;
 * - cancels every task it runs whose `ancestors` hold it, at once, without waiting for the cascade to get there.
 *
 * A server hears of a cancel from its own CancelTask, or from a peer that refused one of its sends for that reason
 * (the refusal names the token): so the tree stops on every server it touched within about one round trip, not
 * one per hop. The memory is per process and bounded (the newest `capacity` tokens, each for `ttlMs`): behind
 * replicas that do not share it, the hop-by-hop cascade and the depth limit still end the tree, only later.
 */
import { A2A_ONCE_ERROR_DOMAIN, A2AError, type A2AErrorSpec } from '../../protocol/errors.js';
import type { Message, Task } from '../../protocol/model.js';
import { agentMessage } from '../runner/message-init.js';
import { chainPositionOf } from './delegation-chain.js';

/** How long a cancelled task's token is remembered (ms): far longer than a send in flight takes to arrive. */
export const CANCELLED_TTL_MS = 10 * 60_000;

/** How many tokens are remembered at most (the oldest go first). */
export const CANCELLED_CAPACITY = 10_000;

/**
 * The refusal of a send below a cancelled task: JSON-RPC -32602 / HTTP 400 / gRPC FAILED_PRECONDITION, reason
 * `DELEGATION_CANCELLED` (domain `a2a-once`), metadata `cancelledAncestor` (the token) and `chainId`.
 */
export const DELEGATION_CANCELLED: A2AErrorSpec = Object.freeze({
  name: 'DelegationCancelledError',
  code: -32602,
  httpStatus: 400,
  grpcStatus: 'FAILED_PRECONDITION',
  reason: 'DELEGATION_CANCELLED',
  domain: A2A_ONCE_ERROR_DOMAIN,
  defaultMessage: 'A task above this one in its delegation chain was cancelled',
});

/** The status message of a task cancelled because a task above it was. */
export const ANCESTOR_CANCELLED_TEXT = 'Cancelled: a task above it in its delegation chain was cancelled';

/**
 * The metadata entry of such a status message: the cancelled task's token, so a parent watching the task can
 * tell that it is in the cancelled subtree too.
 */
export const CANCELLED_ANCESTOR_METADATA_KEY = 'a2a-once.dev/cancelled-ancestor';

/** The status message of task `taskId`, cancelled because the task with `token` above it was. */
export function ancestorCancelledMessage(taskId: string, contextId: string, token: string): Message {
  return {
    ...agentMessage(ANCESTOR_CANCELLED_TEXT, taskId, contextId),
    metadata: { [CANCELLED_ANCESTOR_METADATA_KEY]: token },
  };
}

/** The token a cancelled task's status message names, if it was cancelled because a task above it was. */
export function cancelledAncestorIn(task: Task | undefined): string | undefined {
  const token: unknown = task?.status.message?.metadata?.[CANCELLED_ANCESTOR_METADATA_KEY];
  return typeof token === 'string' && token !== '' ? token : undefined;
}

/** The token of the cancelled ancestor a refusal names, when `err` is a `DELEGATION_CANCELLED` refusal. */
export function cancelledAncestorOf(err: unknown): string | undefined {
  if (!(err instanceof A2AError)) return undefined;
  // A client rebuilds an error it has no class for by its code, so the metadata is what identifies it.
  const token = err.metadata?.cancelledAncestor;
  return typeof token === 'string' && token !== '' ? token : undefined;
}

/** The tokens of cancelled tasks this process remembers. */
export class CancelledSubtrees {
  /** Token -> when it is forgotten; insertion order is age order. */
  readonly #until = new Map<string, number>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly ttlMs = CANCELLED_TTL_MS,
    private readonly capacity = CANCELLED_CAPACITY,
  ) {}

  /** Remembers that the task with `token` was cancelled. */
  add(token: string): void {
    this.#until.delete(token);
    this.#until.set(token, this.now() + this.ttlMs);
    while (this.#until.size > this.capacity) {
      const oldest = this.#until.keys().next().value;
      if (oldest === undefined) break;
      this.#until.delete(oldest);
    }
  }

  /** The first token in `message`'s ancestors this process remembers as cancelled. A malformed entry has none. */
  cancelledAncestor(message: Message): string | undefined {
    if (this.#until.size === 0) return undefined;
    let ancestors: readonly string[];
    try {
      ancestors = chainPositionOf(message).ancestors;
    } catch {
      return undefined;
    }
    const now = this.now();
    for (const token of ancestors) {
      const until = this.#until.get(token);
      if (until === undefined) continue;
      if (until > now) return token;
      this.#until.delete(token);
    }
    return undefined;
  }

  /**
   * The door's check of a send.
   * @throws A2AError `DELEGATION_CANCELLED` when a task above the send's was cancelled
   */
  check(message: Message): void {
    const token = this.cancelledAncestor(message);
    if (token === undefined) return;
    let chainId = '-';
    try {
      chainId = chainPositionOf(message).chainId ?? '-';
    } catch {
      // cancelledAncestor found a token, so the entry reads; the id is only for the message.
    }
    throw new A2AError(DELEGATION_CANCELLED, {
      message: `Delegation refused: a task above this one in delegation chain ${chainId} was cancelled`,
      metadata: { cancelledAncestor: token, chainId },
    });
  }
}
