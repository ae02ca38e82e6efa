/**
 * The a2a-once delegation extension on the wire (ADR 0039, ADR 0061): a lease, a budget and the child's place in
 * its delegation chain (hop count and chain id) carried in a child message's metadata, and the header a parent's
 * GetTask poll carries to renew the lease. A parent writes the limits
 * (`withDelegationLimits`, from the client's `Delegation` and the server's `delegate`) and a child server reads
 * them (`readDelegationLimits`), so both sides share this one file below them (ADR 0001).
 */
import type { JsonObject, Message } from '../protocol/model.js';

/** The extension URI, in `Message.extensions` and on the card of a server that honours it. */
export const DELEGATION_EXTENSION_URI = 'https://a2a-once.dev/extensions/delegation/v1';

/** The `Message.metadata` entry holding `{ leaseMs?, deadline?, hop?, chainId?, ancestors? }`. */
export const DELEGATION_METADATA_KEY = 'a2a-once.dev/delegation';

/**
 * The service-parameter header a parent sets on its GetTask polls of a leased child: the call renews the child's
 * lease for another `leaseMs` once the server answered it (ADR 0039).
 */
export const LEASE_RENEWAL_HEADER = 'a2a-once-delegation-renew';

/** Shortest lease a parent may ask for: renewals go out every third of it, and a poll is a round trip. */
export const MIN_LEASE_MS = 1_000;

/** The most hops a hop count may say: far above any depth a server allows, so a bad number is refused as such. */
export const MAX_HOP = 1_000;

/** What a chain id or an ancestor token looks like: opaque, URL-safe, short (ours are 22 characters of base64url). */
const CHAIN_ID = /^[A-Za-z0-9_-]{8,64}$/;

/** What a parent asks of its child, and where the child stands in its delegation chain (ADR 0061). */
export interface DelegationLimits {
  /** The child cancels itself when no renewal arrived for this long (ms). */
  readonly leaseMs?: number;
  /** The child fails when this instant (epoch ms) passes before it finished. */
  readonly deadline?: number;
  /**
   * How many delegations separate the child from the root task of its chain: 1 for a child of a task that was
   * not itself delegated. A message without it is hop 0, a root (a parent that does not send one is treated so).
   */
  readonly hop?: number;
  /**
   * The chain's id: the same for every task below one root, and derived from the root task's id, never from an
   * idempotency key. For correlating log lines across servers.
   */
  readonly chainId?: string;
  /**
   * Opaque tokens of the tasks above the child, root first, nearest last (a hash of each task's id): how a server
   * that hears of a cancel tells which of its tasks are below the cancelled one (ADR 0062).
   */
  readonly ancestors?: readonly string[];
}

/** The message with the limits in its metadata and the extension URI declared once; `message` is not changed. */
export function withDelegationLimits(message: Message, limits: DelegationLimits): Message {
  const entry: JsonObject = {};
  if (limits.leaseMs !== undefined) {
    if (!Number.isSafeInteger(limits.leaseMs) || limits.leaseMs < MIN_LEASE_MS) {
      throw new RangeError(
        `leaseMs must be an integer of at least ${MIN_LEASE_MS} ms, got ${limits.leaseMs}`,
      );
    }
    entry.leaseMs = limits.leaseMs;
  }
  if (limits.deadline !== undefined) {
    if (!Number.isFinite(limits.deadline)) throw new RangeError('deadline must be a time in epoch ms');
    entry.deadline = new Date(limits.deadline).toISOString();
  }
  if (limits.hop !== undefined) {
    if (!Number.isSafeInteger(limits.hop) || limits.hop < 1 || limits.hop > MAX_HOP)
      throw new RangeError(`hop must be an integer from 1 to ${MAX_HOP}, got ${limits.hop}`);
    entry.hop = limits.hop;
  }
  if (limits.chainId !== undefined) {
    if (!CHAIN_ID.test(limits.chainId))
      throw new RangeError('chainId must be 8 to 64 characters of A-Z, a-z, 0-9, - and _');
    entry.chainId = limits.chainId;
  }
  if (limits.ancestors !== undefined) {
    if (limits.ancestors.length > MAX_HOP || !limits.ancestors.every((a) => CHAIN_ID.test(a)))
      throw new RangeError(`ancestors must be at most ${MAX_HOP} tokens like a chainId`);
    entry.ancestors = [...limits.ancestors];
  }
  if (Object.keys(entry).length === 0) return message;
  const extensions = message.extensions ?? [];
  return {
    ...message,
    metadata: { ...message.metadata, [DELEGATION_METADATA_KEY]: entry },
    extensions: extensions.includes(DELEGATION_EXTENSION_URI)
      ? extensions
      : [...extensions, DELEGATION_EXTENSION_URI],
  };
}

/** A delegation entry the server cannot honour; the child is refused work rather than run unbounded. */
export class DelegationLimitsError extends Error {
  override name = 'DelegationLimitsError';
  readonly code = 'DELEGATION_LIMITS_INVALID';
}

/**
 * The limits in `message`, or undefined when it carries none.
 * @throws DelegationLimitsError naming the bad field
 */
export function readDelegationLimits(message: Message): DelegationLimits | undefined {
  const entry: unknown = message.metadata?.[DELEGATION_METADATA_KEY];
  if (entry === undefined) return undefined;
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
    throw new DelegationLimitsError(`metadata["${DELEGATION_METADATA_KEY}"] must be an object`);
  }
  const { leaseMs, deadline, hop, chainId, ancestors } = entry as Record<string, unknown>;
  const out: {
    leaseMs?: number;
    deadline?: number;
    hop?: number;
    chainId?: string;
    ancestors?: readonly string[];
  } = {};
  if (leaseMs !== undefined) {
    if (typeof leaseMs !== 'number' || !Number.isSafeInteger(leaseMs) || leaseMs < MIN_LEASE_MS) {
      throw new DelegationLimitsError(
        `metadata["${DELEGATION_METADATA_KEY}"].leaseMs must be an integer of at least ${MIN_LEASE_MS}`,
      );
    }
    out.leaseMs = leaseMs;
  }
  if (deadline !== undefined) {
    const t = typeof deadline === 'string' ? Date.parse(deadline) : NaN;
    if (!Number.isFinite(t)) {
      throw new DelegationLimitsError(
        `metadata["${DELEGATION_METADATA_KEY}"].deadline must be an ISO 8601 time`,
      );
    }
    out.deadline = t;
  }
  if (hop !== undefined) {
    if (typeof hop !== 'number' || !Number.isSafeInteger(hop) || hop < 1 || hop > MAX_HOP) {
      throw new DelegationLimitsError(
        `metadata["${DELEGATION_METADATA_KEY}"].hop must be an integer from 1 to ${MAX_HOP}`,
      );
    }
    out.hop = hop;
  }
  if (chainId !== undefined) {
    if (typeof chainId !== 'string' || !CHAIN_ID.test(chainId)) {
      throw new DelegationLimitsError(
        `metadata["${DELEGATION_METADATA_KEY}"].chainId must be 8 to 64 characters of A-Z, a-z, 0-9, - and _`,
      );
    }
    out.chainId = chainId;
  }
  if (ancestors !== undefined) {
    if (
      !Array.isArray(ancestors) ||
      ancestors.length > MAX_HOP ||
      !ancestors.every((a) => typeof a === 'string' && CHAIN_ID.test(a))
    ) {
      throw new DelegationLimitsError(
        `metadata["${DELEGATION_METADATA_KEY}"].ancestors must be a list of at most ${MAX_HOP} tokens of 8 to 64 characters of A-Z, a-z, 0-9, - and _`,
      );
    }
    out.ancestors = ancestors as string[];
  }
  return out;
}
