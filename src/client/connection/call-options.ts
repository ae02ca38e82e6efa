/**
 * What a caller can say about one call (limits, headers, extensions), and the interface shape a connection is
 * built from. Kept apart from the client's own options so the layers below the client can name them without
 * importing upwards (ADR 0033).
 */
import type { AgentInterface } from '../../protocol/agent-card.js';
import { ClientError } from '../transport/client-error.js';

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
  /** The most this call reads of one answer (or one SSE event), in bytes; the client's `maxResponseBytes` if unset. */
  readonly maxResponseBytes?: number;
}

/** An interface the client can use (from a card, or described by hand for a bare endpoint). */
export type Endpoint = Pick<AgentInterface, 'url' | 'protocolBinding' | 'protocolVersion' | 'tenant'>;

/** A count option: a non-negative safe integer, or a ClientError naming it. */
export function countOption(name: string, value: number | undefined, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < min)
    throw new ClientError('INVALID_ARGUMENT', `${name} must be an integer of at least ${min}, not ${value}`);
  return value;
}
