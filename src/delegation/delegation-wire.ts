/**
 * The a2a-once delegation extension on the wire (ADR 0039): a lease and a budget carried in a child message's
 * metadata, and the header a parent's GetTask poll carries to renew the lease. A parent writes the limits
 * (`withDelegationLimits`, from the client's `Delegation` and the server's `delegate`) and a child server reads
 * them (`readDelegationLimits`), so both sides share this one file below them (ADR 0001).
 */
import type { JsonObject, Message } from '../protocol/model.js';

/** The extension URI, in `Message.extensions` and on the card of a server that honours it. */
export const DELEGATION_EXTENSION_URI = 'https://a2a-once.dev/extensions/delegation/v1';

/** The `Message.metadata` entry holding `{ leaseMs?, deadline? }`. */
export const DELEGATION_METADATA_KEY = 'a2a-once.dev/delegation';

/**
 * The service-parameter header a parent sets on its GetTask polls of a leased child: the call renews the child's
 * lease for another `leaseMs` once the server answered it (ADR 0039).
 */
export const LEASE_RENEWAL_HEADER = 'a2a-once-delegation-renew';

/** Shortest lease a parent may ask for: renewals go out every third of it, and a poll is a round trip. */
export const MIN_LEASE_MS = 1_000;

/** What a parent asks of its child. */
export interface DelegationLimits {
  /** The child cancels itself when no renewal arrived for this long (ms). */
  readonly leaseMs?: number;
  /** The child fails when this instant (epoch ms) passes before it finished. */
  readonly deadline?: number;
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
  const { leaseMs, deadline } = entry as Record<string, unknown>;
  const out: { leaseMs?: number; deadline?: number } = {};
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
  return out;
}
