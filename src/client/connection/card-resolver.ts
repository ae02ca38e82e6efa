/**
 * Fetching an agent card (A2A §8.2): `GET {base}/.well-known/agent-card.json` with `A2A-Version` (the JS
 * client sends it on the card fetch too, A2A v1.0), retried as a read, and parsed leniently. Also reads the
 * one fact the retry policy needs from a card: whether the agent honours idempotency keys (ADR 0020: the agent
 * card is the evidence, and the client requires it).
 *
 * The card is read up to `maxResponseBytes` (ADR 0069): a larger one is a definite `ClientError`
 * `RESPONSE_TOO_LARGE`, a configuration failure that no retry mends. Redirects are followed by hand, at most
 * `cardRedirects` of them and only within the card URL's origin (ADR 0070): the caller's headers, which may carry
 * credentials, never reach another origin, and another origin's card is never taken for this agent's. With
 * `credentials`, the card fetch carries them too (a `{ token }` as a bearer token: there is no card yet to say
 * otherwise) and, like every call, resends once with a fresh credential after a 401 (ADR 0079).
 */
import { checkAgentUrl } from './agent-url.js';
import type { AgentCard } from '../../protocol/agent-card.js';
import { AGENT_CARD_PATH, HEADER_VERSION, MEDIA_JSON, PROTOCOL_VERSION } from '../../protocol/constants.js';
import { parseAnyAgentCard } from '../../protocol/v03/card.js';
import { IDEMPOTENCY_EXTENSION_URI } from '../../idempotency/index.js';
import { CallScope } from '../transport/call-scope.js';
import { readBoundedText, DEFAULT_MAX_RESPONSE_BYTES } from '../transport/bounded-body.js';
import {
  discardBody,
  exchange,
  isRedirect,
  redirectRefused,
  redirectTarget,
  tryParseJson,
} from '../transport/http-exchange.js';
import type { AttemptScope } from '../transport/call-scope.js';
import { countOption } from './call-options.js';
import { statusFailure } from '../transport/failure-kind.js';
import type { FetchLike } from '../transport/transport.js';
import { resolveRetry, withRetry } from '../retry/retry-loop.js';
import type { RetryOptions } from '../retry/retry-policy.js';
import { fromRestError } from '../../protocol/error-wire.js';
import { TransportError } from '../transport/transport-error.js';
import { ClientError } from './client-error.js';
import { ClientCredentials, withCredentialHeaders } from '../credentials/client-credentials.js';
import type { CredentialsOption } from '../credentials/credential.js';
import { placementOf } from '../credentials/credential-placement.js';

/**
 * The card URL for what a user typed: a URL naming a `.json` document is used as is; anything else is a base
 * URL and gets `/.well-known/agent-card.json` appended to its path.
 */
export function cardUrlOf(url: string): string {
  checkAgentUrl(url);
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
  /** Time limit of each attempt, in ms. Default 10,000. */
  readonly attemptTimeoutMs?: number;
  readonly retry?: RetryOptions | false;
  /** The most the card may hold, in bytes. Default 8 MiB (`DEFAULT_MAX_RESPONSE_BYTES`). */
  readonly maxResponseBytes?: number;
  /** Same-origin redirects followed, at most. Default 3; 0 follows none. Another origin's is never followed. */
  readonly cardRedirects?: number;
  /** The credential (or its provider) sent with the card fetch (ADR 0079). */
  readonly credentials?: CredentialsOption;
}

/** The default of `cardRedirects`. */
export const DEFAULT_CARD_REDIRECTS = 3;

/**
 * The card's answer, after following at most `limit` redirects within the origin of `cardUrl`. Every hop goes
 * to the same origin, so the caller's headers travel only where they were meant to.
 */
async function getFollowingSameOrigin(
  fetchImpl: FetchLike,
  cardUrl: string,
  headers: Readonly<Record<string, string>>,
  limit: number,
  scope: AttemptScope,
): Promise<{ res: Response; url: string }> {
  const origin = new URL(cardUrl).origin;
  let url = cardUrl;
  for (let hops = 0; ; hops++) {
    const res = await exchange(fetchImpl, { url, method: 'GET', headers, redirects: 'return' }, scope);
    if (!isRedirect(res)) return { res, url };
    discardBody(res);
    const next = redirectTarget(res, url);
    if (next === undefined || new URL(next).origin !== origin)
      throw redirectRefused(res, url, `the card fetch follows redirects only within ${origin}`);
    if (hops >= limit)
      throw redirectRefused(res, url, `the card fetch follows at most ${limit} redirect(s) (cardRedirects)`);
    url = next;
  }
}

/** Fetches and parses the card at `cardUrl` (use `cardUrlOf` for a base URL). */
export async function fetchAgentCard(cardUrl: string, options: FetchCardOptions = {}): Promise<AgentCard> {
  const fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  const maxBytes = countOption('maxResponseBytes', options.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES, 1);
  const redirects = countOption('cardRedirects', options.cardRedirects, DEFAULT_CARD_REDIRECTS);
  const headers = { ...options.headers, [HEADER_VERSION]: PROTOCOL_VERSION, Accept: MEDIA_JSON };
  const credentials =
    options.credentials === undefined
      ? undefined
      : new ClientCredentials(options.credentials, placementOf(undefined));
  const call = new CallScope({ signal: options.signal, timeoutMs: options.timeoutMs });
  return withRetry(
    async (scope, credential) => {
      const { res, url } = await getFollowingSameOrigin(
        fetchImpl,
        cardUrl,
        withCredentialHeaders(headers, credential),
        redirects,
        scope,
      );
      const text = await readCard(res, scope, maxBytes, url);
      const json = tryParseJson(text);
      const failure = statusFailure(res);
      if (failure !== undefined) throw failure;
      if (!res.ok) {
        if (res.status >= 500)
          throw new TransportError('ambiguous', 'HTTP_ERROR', `HTTP ${res.status}`, {
            httpStatus: res.status,
          });
        if (res.status === 401 || res.status === 403) throw fromRestError(res.status, json);
        throw new ClientError('NO_AGENT_CARD', `no agent card at ${url} (HTTP ${res.status})`);
      }
      if (json === undefined) throw new TransportError('ambiguous', 'BAD_BODY', 'an unreadable agent card');
      return parseAnyAgentCard(json);
    },
    {
      retry: resolveRetry(options.retry),
      safety: 'read',
      call,
      attemptTimeoutMs: options.attemptTimeoutMs ?? 10_000,
      credentials: credentials?.forCall(),
    },
  );
}

/** The card's text, or a definite ClientError when it is past the limit (a card does not shrink on a retry). */
async function readCard(res: Response, scope: AttemptScope, maxBytes: number, url: string): Promise<string> {
  try {
    return await readBoundedText(res, scope, maxBytes, statusFailure);
  } catch (err) {
    if (err instanceof TransportError && err.code === 'RESPONSE_TOO_LARGE')
      throw new ClientError(
        'RESPONSE_TOO_LARGE',
        `the agent card at ${url} is larger than the client's limit of ${maxBytes} bytes (maxResponseBytes)`,
        { limitBytes: maxBytes, httpStatus: res.status },
      );
    throw err;
  }
}
