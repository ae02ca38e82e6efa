/**
 * The options of `A2AClient`. The options of one call live with the connection (`connection/call-options.ts`),
 * those of a send with the sends (`sends/send-options.ts`), so lower layers never import this file.
 */
import type { FetchLike, TransportFactory } from './transport/transport.js';
import type { IntentStore } from './intents/intent-store.js';
import type { RetryOptions } from './retry/retry-policy.js';
import type { ClientLogger } from './sends/client-logger.js';
import type { CredentialsOption } from './credentials/credential.js';
import type { Telemetry } from '../telemetry/telemetry.js';

/** Options of a client. */
export interface A2AClientOptions {
  /** `fetch` to use (default: the global one). */
  readonly fetch?: FetchLike;
  /** Headers sent on every request. For a credential prefer `credentials`, which a 401 can refresh. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Who the client is (A2A §7, ADR 0079): `{ bearer }`, `{ apiKey, header? }`, a scheme-agnostic `{ token }` sent
   * the way the card's security schemes say, or a provider asked before each attempt (`oauth2ClientCredentials`
   * makes one). After a 401 a provider is asked once more for a fresh credential and the call is resent with it;
   * a second 401, a 401 to a fixed credential, and any 403 are final. `fromCardUrl` and `connect` send it with
   * the card fetch too. Its header replaces a header of the same name in `headers`.
   */
  readonly credentials?: CredentialsOption;
  /** Extension URIs to activate on every request (`A2A-Extensions`, A2A v1.0). */
  readonly extensions?: readonly string[];
  /** Retry settings; `false` for a single attempt per call. */
  readonly retry?: RetryOptions | false;
  /**
   * Asserts whether the peer honours idempotency keys, overriding the card. Only assert `true` for a peer you
   * know deduplicates on the key: a keyed send is then resent after an ambiguous failure (ADR 0020).
   */
  readonly peerHonoursKeys?: boolean;
  /** `auto` (default): `send` mints a key when the peer honours keys; `off`: only keys the caller sets. */
  readonly keys?: 'auto' | 'off';
  /** Where keyed sends are recorded before their first attempt (durable intent, docs/semantics.md §7). */
  readonly intentStore?: IntentStore;
  /**
   * Where the client reports what it cannot hand back to a caller: an intent store that failed to settle an
   * answered send (the answer still reaches the caller), an answer it could not read (ADR 0068). Never given a
   * key in clear. Default: one line on stderr per event, through `console.warn`.
   */
  readonly logger?: ClientLogger;
  /** Default overall time limit of a call, retries included, in ms. Default: none. */
  readonly timeoutMs?: number;
  /**
   * Default time limit of one attempt, in ms (until the whole answer, or until a stream opens). Default 30,000.
   * An attempt that runs out is an ambiguous failure.
   */
  readonly attemptTimeoutMs?: number;
  /**
   * The most the client reads of one answer, of the card, and of one SSE event, in bytes (an event: in
   * characters). Default 8 MiB. A larger answer fails, without being held in memory: a card with `ClientError`
   * `RESPONSE_TOO_LARGE`, a call with the ambiguous `TransportError` `RESPONSE_TOO_LARGE` (not retried; a send then
   * ends in `OutcomeUnknownError`), a stream with `SseEventTooLargeError` (ADR 0069).
   */
  readonly maxResponseBytes?: number;
  /**
   * Bindings to prefer when choosing from a card, most preferred first. Default `['JSONRPC', 'HTTP+JSON']`, then
   * the bindings of `transports` in their order.
   */
  readonly preferredBindings?: readonly string[];
  /**
   * Transports of bindings the core client does not carry (ADR 0110): `[grpcTransport()]` from
   * `a2a-once/client/grpc` lets the client use a card's GRPC interfaces. Default: none, and only JSON-RPC and
   * HTTP+JSON interfaces are used.
   */
  readonly transports?: readonly TransportFactory[];
  /**
   * Spans and W3C trace context (ADR 0091): `openTelemetry()` from `a2a-once/otel`. With it every attempt is a
   * CLIENT span whose context the request carries in `traceparent` / `tracestate`, and the card request carries
   * the active context. Default: none, and no telemetry code runs.
   */
  readonly telemetry?: Telemetry;
}
