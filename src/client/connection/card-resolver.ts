/**
 * Fetching an agent card (A2A §8.2): `GET {base}/.well-known/agent-card.json` with `A2A-Version` (the JS
 * client sends it on the card fetch too, A2A v1.0), retried as a read, and parsed leniently. Also reads the
 * one fact the retry policy needs from a card: whether the agent honours idempotency keys (ADR 0020: the agent
 * card is the evidence, and the client requires it).
 */
import type { AgentCard } from '../../protocol/agent-card.js';
import { AGENT_CARD_PATH, HEADER_VERSION, MEDIA_JSON, PROTOCOL_VERSION } from '../../protocol/constants.js';
import { parseAgentCard } from '../../protocol/parse.js';
import { IDEMPOTENCY_EXTENSION_URI } from '../../idempotency/index.js';
import { CallScope } from '../transport/call-scope.js';
import { exchange, readText, tryParseJson } from '../transport/http-exchange.js';
import { statusFailure } from '../transport/failure-kind.js';
import type { FetchLike } from '../transport/transport.js';
import { resolveRetry, withRetry } from '../retry/retry-loop.js';
import type { RetryOptions } from '../retry/retry-policy.js';
import { fromRestError } from '../../protocol/error-wire.js';
import { TransportError } from '../transport/transport-error.js';
import { ClientError } from './client-error.js';

/**
 * The card URL for what a user typed: a URL naming a `.json` document is used as is; anything else is a base
 * URL and gets `/.well-known/agent-card.json` appended to its path.
 */
export function cardUrlOf(url: string): string {
  const u = new URL(url);
  if (u.pathname.endsWith('.json')) return u.toString();
  u.pathname = u.pathname.replace(/\/+$/, '') + AGENT_CARD_PATH;
  return u.toString();
}

/** Whether the card advertises the idempotency extension (docs/semantics.md §7, ADR 0020). */
export function honoursKeys(card: AgentCard): boolean {
  return (card.capabilities?.extensions ?? []).some((e) => e.uri === IDEMPOTENCY_EXTENSION_URI);
}

/** Options of `fetchAgentCard`. */
export interface FetchCardOptions {
  readonly fetch?: FetchLike;
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
  readonly attemptTimeoutMs?: number;
  readonly retry?: RetryOptions | false;
}

/** Fetches and parses the card at `cardUrl` (use `cardUrlOf` for a base URL). */
export async function fetchAgentCard(cardUrl: string, options: FetchCardOptions = {}): Promise<AgentCard> {
  const fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  const call = new CallScope({ signal: options.signal, timeoutMs: options.timeoutMs });
  return withRetry(
    async (scope) => {
      const res = await exchange(
        fetchImpl,
        {
          url: cardUrl,
          method: 'GET',
          headers: { ...options.headers, [HEADER_VERSION]: PROTOCOL_VERSION, Accept: MEDIA_JSON },
        },
        scope,
      );
      const text = await readText(res, scope);
      const json = tryParseJson(text);
      const failure = statusFailure(res);
      if (failure !== undefined) throw failure;
      if (!res.ok) {
        if (res.status >= 500)
          throw new TransportError('ambiguous', 'HTTP_ERROR', `HTTP ${res.status}`, {
            httpStatus: res.status,
          });
        if (res.status === 401 || res.status === 403) throw fromRestError(res.status, json);
        throw new ClientError('NO_AGENT_CARD', `no agent card at ${cardUrl} (HTTP ${res.status})`);
      }
      if (json === undefined) throw new TransportError('ambiguous', 'BAD_BODY', 'an unreadable agent card');
      return parseAgentCard(json);
    },
    {
      retry: resolveRetry(options.retry),
      safety: 'read',
      call,
      attemptTimeoutMs: options.attemptTimeoutMs ?? 10_000,
    },
  );
}
