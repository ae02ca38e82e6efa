/**
 * A task's place in its delegation chain (ADR 0061): how many delegations separate it from the chain's root (its
 * hop count) and the chain's id, both carried in the delegation extension's metadata. A server refuses a send
 * whose hop is past its depth limit at the door, before any claim, so two agents that delegate to each other (or
 * a tree that keeps fanning out) stop at a known depth with an error that travels back up to the root, instead of
 * growing one task per round trip for ever. A parent that sends no entry is a root (hop 0): the wire stays
 * compatible with peers that know nothing of chains.
 *
 * The chain id is derived from the root task's id (a hash of it), never from an idempotency key: it names the
 * chain in log lines on every server it reaches, and a key is a handle to a task (docs/semantics.md §1).
 */
import { createHash } from 'node:crypto';
import { A2A_ONCE_ERROR_DOMAIN, A2AError, type A2AErrorSpec } from '../../protocol/errors.js';
import type { Message } from '../../protocol/model.js';
import { readDelegationLimits } from '../../delegation/index.js';

/** Default of `delegation.maxDepth`: hops a chain may go below its root. */
export const DEFAULT_MAX_DELEGATION_DEPTH = 8;

/** Default of `delegation.defaultBudgetMs`: the deadline a delegation gets when nobody above it set one (1 h). */
export const DEFAULT_DELEGATION_BUDGET_MS = 3_600_000;

/** The most `delegation.maxDepth` may say (each hop adds a 22-character ancestor token to a child message). */
export const MAX_DELEGATION_DEPTH = 100;

/** How a server bounds the delegation chains it takes part in (the `delegation` server option). */
export interface DelegationOptions {
  /**
   * The deepest hop this server accepts a task at, and delegates to: a send whose hop is past it is refused with
   * `DELEGATION_DEPTH_EXCEEDED`, and so is a `delegate` call that would make one. 0 refuses every delegated
   * send. Default 8.
   */
  readonly maxDepth?: number;
  /**
   * The deadline (ms from the plan) a delegation carries when neither the caller nor any parent above set one, so
   * every chain ends by itself. `false`: none. Default 1 h.
   */
  readonly defaultBudgetMs?: number | false;
}

/** The `delegation` option with its defaults applied. */
export interface DelegationSettings {
  readonly maxDepth: number;
  /** Undefined: no default deadline. */
  readonly defaultBudgetMs: number | undefined;
}

/** Defaults, for a context the server did not make (a test's own `AgentContext`). */
export const DEFAULT_DELEGATION_SETTINGS: DelegationSettings = {
  maxDepth: DEFAULT_MAX_DELEGATION_DEPTH,
  defaultBudgetMs: DEFAULT_DELEGATION_BUDGET_MS,
};

/**
 * Applies the defaults.
 * @throws RangeError for a depth that is not a whole number from 0 to `MAX_DELEGATION_DEPTH`, or a budget that is
 *   not a positive whole number of ms
 */
export function resolveDelegationSettings(o: DelegationOptions = {}): DelegationSettings {
  const maxDepth = o.maxDepth ?? DEFAULT_MAX_DELEGATION_DEPTH;
  if (!Number.isSafeInteger(maxDepth) || maxDepth < 0 || maxDepth > MAX_DELEGATION_DEPTH)
    throw new RangeError(`delegation.maxDepth must be a whole number from 0 to ${MAX_DELEGATION_DEPTH}`);
  const budget = o.defaultBudgetMs ?? DEFAULT_DELEGATION_BUDGET_MS;
  if (budget !== false && (!Number.isSafeInteger(budget) || budget <= 0))
    throw new RangeError('delegation.defaultBudgetMs must be a positive whole number of ms, or false');
  return { maxDepth, defaultBudgetMs: budget === false ? undefined : budget };
}

/** Where a task stands in its chain. */
export interface ChainPosition {
  /** 0 for a root. */
  readonly hop: number;
  /** Undefined for a root: its children get the id derived from its task id. */
  readonly chainId: string | undefined;
  /** Tokens of the tasks above, root first (empty for a root, or when the parent sent none). */
  readonly ancestors: readonly string[];
}

/**
 * The position `message` carries; a root's without an entry.
 * @throws DelegationLimitsError for a malformed entry
 */
export function chainPositionOf(message: Message): ChainPosition {
  const limits = readDelegationLimits(message);
  return { hop: limits?.hop ?? 0, chainId: limits?.chainId, ancestors: limits?.ancestors ?? [] };
}

/** The token of task `taskId` in its children's `ancestors`: 22 characters of base64url of a hash of the id. */
export function ancestorToken(taskId: string): string {
  return createHash('sha256')
    .update('a2a-once delegation task\u0000' + taskId)
    .digest('base64url')
    .slice(0, 22);
}

/** The chain id of the chain rooted at task `rootTaskId`: 22 characters of base64url of a hash of the id. */
export function chainIdFor(rootTaskId: string): string {
  return createHash('sha256')
    .update('a2a-once delegation chain\u0000' + rootTaskId)
    .digest('base64url')
    .slice(0, 22);
}

/** The position a child of task `taskId`, whose turn's message is `message`, gets. */
export function childPosition(
  taskId: string,
  message: Message,
): { hop: number; chainId: string; ancestors: string[] } {
  const parent = chainPositionOf(message);
  return {
    hop: parent.hop + 1,
    chainId: parent.chainId ?? chainIdFor(taskId),
    ancestors: [...parent.ancestors, ancestorToken(taskId)],
  };
}

/**
 * The refusal of a task past the depth limit: JSON-RPC -32602 / HTTP 400 / gRPC FAILED_PRECONDITION, reason
 * `DELEGATION_DEPTH_EXCEEDED` (domain `a2a-once`), metadata `hop`, `maxDepth` and `chainId`.
 */
export const DELEGATION_DEPTH_EXCEEDED: A2AErrorSpec = Object.freeze({
  name: 'DelegationDepthExceededError',
  code: -32602,
  httpStatus: 400,
  grpcStatus: 'FAILED_PRECONDITION',
  reason: 'DELEGATION_DEPTH_EXCEEDED',
  domain: A2A_ONCE_ERROR_DOMAIN,
  defaultMessage: 'The delegation chain is deeper than this server allows',
});

/** The error refusing a task at `hop` of chain `chainId`, past `maxDepth`. */
export function depthExceeded(hop: number, maxDepth: number, chainId: string): A2AError {
  return new A2AError(DELEGATION_DEPTH_EXCEEDED, {
    message:
      `Delegation refused: the task would be hop ${hop} of delegation chain ${chainId}, past the limit of ` +
      `${maxDepth} hop(s) below its root; a chain this deep is most likely a loop between agents`,
    metadata: { hop: String(hop), maxDepth: String(maxDepth), chainId },
  });
}

/**
 * The door's check of a send: refused when its hop is past `maxDepth`. A malformed entry is let through: the
 * turn fails on it before the agent runs (ADR 0039), as it always did.
 * @throws A2AError `DELEGATION_DEPTH_EXCEEDED`
 */
export function checkDelegationDepth(message: Message, maxDepth: number): void {
  let position: ChainPosition;
  try {
    position = chainPositionOf(message);
  } catch {
    return;
  }
  if (position.hop > maxDepth) throw depthExceeded(position.hop, maxDepth, position.chainId ?? '-');
}
