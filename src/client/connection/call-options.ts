/**
 * What a caller can say about one call (limits, headers, extensions), and the interface shape a connection is
 * built from. Kept apart from the client's own options so the layers below the client can name them without
 * importing upwards (ADR 0033).
 */
import type { AgentInterface } from '../../protocol/agent-card.js';

/** Options of one call. */
export interface CallOptions {
  readonly signal?: AbortSignal;
  /** Overall time limit of this call, retries included, in ms. */
  readonly timeoutMs?: number;
  /** Time limit of each attempt of this call, in ms. */
  readonly attemptTimeoutMs?: number;
  /** Extra headers for this call. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Extra extension URIs to activate for this call. */
  readonly extensions?: readonly string[];
  /** `false`: a single attempt. */
  readonly retry?: false;
}

/** An interface the client can use (from a card, or described by hand for a bare endpoint). */
export type Endpoint = Pick<AgentInterface, 'url' | 'protocolBinding' | 'protocolVersion' | 'tenant'>;
