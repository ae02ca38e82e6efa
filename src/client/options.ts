/**
 * The options of `A2AClient` and of its calls, and the message shorthand `send` accepts.
 */
import { randomUUID } from 'node:crypto';
import type { AgentInterface } from '../protocol/agent-card.js';
import type { JsonObject, Message } from '../protocol/model.js';
import type { SendMessageConfiguration } from '../protocol/requests.js';
import type { Role } from '../protocol/task-state.js';
import type { FetchLike } from './http-exchange.js';
import type { IntentStore } from './intent-store.js';
import type { RetryOptions } from './retry-policy.js';

/** Options of a client. */
export interface A2AClientOptions {
  /** `fetch` to use (default: the global one). */
  readonly fetch?: FetchLike;
  /** Headers sent on every request (credentials, for instance). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Extension URIs to activate on every request (`A2A-Extensions`, digest §6). */
  readonly extensions?: readonly string[];
  /** Retry settings; `false` for a single attempt per call. */
  readonly retry?: RetryOptions | false;
  /**
   * Asserts whether the peer honours idempotency keys, overriding the card. Only assert `true` for a peer you
   * know deduplicates on the key: a keyed send is then resent after an ambiguous failure (seed 000).
   */
  readonly peerHonoursKeys?: boolean;
  /** `auto` (default): `send` mints a key when the peer honours keys; `off`: only keys the caller sets. */
  readonly keys?: 'auto' | 'off';
  /** Where keyed sends are recorded before their first attempt (durable intent, SEMANTICS §7). */
  readonly intentStore?: IntentStore;
  /** Default overall time limit of a call, retries included, in ms. Default: none. */
  readonly timeoutMs?: number;
  /**
   * Default time limit of one attempt, in ms (until the whole answer, or until a stream opens). Default 30,000.
   * An attempt that runs out is an ambiguous failure.
   */
  readonly attemptTimeoutMs?: number;
  /** Bindings to prefer when choosing from a card, most preferred first. Default `['JSONRPC', 'HTTP+JSON']`. */
  readonly preferredBindings?: readonly string[];
}

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

/** Options of `send` and `sendStream`. */
export interface SendOptions extends CallOptions {
  /**
   * The idempotency key: `'auto'` (the default) mints one when the peer honours keys and the client's `keys` is
   * not `off`; any other string is used as the key; `false` sends unkeyed. A key already in the message is kept.
   */
  readonly key?: string | false;
  readonly configuration?: SendMessageConfiguration;
  readonly metadata?: JsonObject;
}

/** A message to send: text, or a message whose `messageId` and `role` may be left for the client to fill. */
export type MessageInput =
  string | (Omit<Message, 'messageId' | 'role'> & { messageId?: string; role?: Role });

/** The message `send` will send for `input`: a fresh messageId and `ROLE_USER` unless given. */
export function toMessage(input: MessageInput): Message {
  if (typeof input === 'string')
    return { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: input }] };
  return { ...input, messageId: input.messageId ?? randomUUID(), role: input.role ?? 'ROLE_USER' };
}

/** An interface the client can use (from a card, or described by hand for a bare endpoint). */
export type Endpoint = Pick<AgentInterface, 'url' | 'protocolBinding' | 'protocolVersion' | 'tenant'>;
