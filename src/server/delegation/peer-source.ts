/**
 * Where a delegation gets its peer (ADR 0083): a client made at start-up, or a function that makes one when the
 * delegation first needs it. A coordinator that awaited `A2AClient.fromCardUrl(childUrl)` before serving would die
 * when its child is not up yet; with a function, it starts anyway, and a turn that finds the child away fails
 * with a clear message, nothing recorded and nothing sent, so the next turn (or a retry) tries again.
 */
import type { DelegationPeer } from '../../delegation/index.js';

/** A peer, or a function giving one (called at each delegation: memoize it with `lazyPeer`). */
export type PeerSource = DelegationPeer | (() => DelegationPeer | Promise<DelegationPeer>);

/** The peer could not be had: a delegation that failed before anything was recorded or sent. */
export class PeerUnavailableError extends Error {
  readonly code = 'DELEGATION_PEER_UNAVAILABLE';
  override name = 'PeerUnavailableError';
  constructor(options: { cause: unknown }) {
    // A fixed text, written for the caller (it is the task's status message): why the child could not be
    // reached names its address, which is the operator's to read, in the log line's `cause` (ADR 0081).
    super('the child agent could not be reached, so nothing was delegated (a later turn tries again)', {
      cause: options.cause,
    });
  }
}

/**
 * Memoizes `connect`: the first call starts it, every call while it is pending or after it succeeded gets the
 * same peer, and a failed attempt is forgotten, so the next call tries again (a child that comes up later is
 * found). Pass the result to `ctx.delegate` as the peer.
 * @example
 * const researcher = lazyPeer(() => A2AClient.fromCardUrl('http://127.0.0.1:8081'));
 * // in an agent: await ctx.delegate(researcher, ctx.userText)
 */
export function lazyPeer<P extends DelegationPeer>(connect: () => P | Promise<P>): () => Promise<P> {
  let pending: Promise<P> | undefined;
  return () => {
    if (pending !== undefined) return pending;
    const attempt = Promise.resolve().then(connect);
    pending = attempt;
    attempt.catch(() => {
      if (pending === attempt) pending = undefined;
    });
    return attempt;
  };
}

/**
 * The peer `source` names, made now if it is a function.
 * @throws PeerUnavailableError when the function throws or rejects
 */
export async function peerOf(source: PeerSource): Promise<DelegationPeer> {
  if (typeof source !== 'function') return source;
  try {
    return await source();
  } catch (err) {
    throw new PeerUnavailableError({ cause: err });
  }
}
