/**
 * Signing the cards a server serves (A2A §8.4, ADR 0074): the public card once per rendering (per origin) and
 * the extended card on each answer, with every configured key, and the public JWKS of those keys at
 * `/.well-known/jwks.json` (configurable), which the protected header's `jku` names unless turned off.
 */
import {
  checkSigningKeys,
  resolveSigningKeys,
  signAgentCard,
  type CardSigningKey,
  type ResolvedSigningKey,
} from '../card-signing/index.js';
import { signJsonObject } from '../card-signing/sign-json-object.js';
import type { AgentCard } from '../protocol/agent-card.js';

/** The default path of the JWKS a signing server publishes. */
export const DEFAULT_JWKS_PATH = '/.well-known/jwks.json';

/** How a server signs its cards. */
export interface CardSigningOptions {
  /** Private keys (JWK with `kid`, or `{ kid, alg, privateKey }`); each signs, so several allow rotation. */
  readonly keys: readonly CardSigningKey[];
  /** Where the public JWKS is served (default `/.well-known/jwks.json`); `false` serves none. */
  readonly jwksPath?: string | false;
  /**
   * The `jku` in each protected header: `true` (default when a JWKS is served) names the served JWKS at the
   * card's base URL, a string names that URL, `false` puts none. Verifiers choose their own keys (ADR 0073).
   */
  readonly jku?: boolean | string;
  /** Also sign the `a2a-js` form when it differs, so `@a2a-js/sdk` verifies the card (default true; ADR 0072). */
  readonly a2aJsCompatible?: boolean;
}

/** Signs cards with the configured keys. */
export class CardSigner {
  /** The JWKS path, or undefined when none is served. */
  readonly jwksPath: string | undefined;
  readonly #keys: Promise<ResolvedSigningKey[]>;
  readonly #jku: boolean | string;
  readonly #a2aJsCompatible: boolean;

  /** Checks the keys at once (throws `CardSigningKeyError`); imports them in the background. */
  constructor(options: CardSigningOptions) {
    checkSigningKeys(options.keys);
    const path = options.jwksPath ?? DEFAULT_JWKS_PATH;
    if (path !== false && !path.startsWith('/'))
      throw new RangeError('cardSigning.jwksPath must start with "/"');
    this.jwksPath = path === false ? undefined : path;
    this.#jku = options.jku ?? this.jwksPath !== undefined;
    this.#a2aJsCompatible = options.a2aJsCompatible ?? true;
    this.#keys = resolveSigningKeys(options.keys);
    // A key that fails to import is reported by the first signing; do not also leave an unhandled rejection.
    this.#keys.catch(() => undefined);
  }

  #jkuFor(baseUrl: string): string | undefined {
    return this.#jku === false
      ? undefined
      : typeof this.#jku === 'string'
        ? this.#jku
        : this.jwksPath !== undefined
          ? new URL(this.jwksPath, baseUrl).toString()
          : undefined;
  }

  /**
   * A card in another form than v1.0's (the v0.3 cards, ADR 0099) signed with every key over its RFC 8785 form
   * as served, without `signatures`.
   */
  async signServed(
    card: Readonly<Record<string, unknown>>,
    baseUrl: string,
  ): Promise<Record<string, unknown>> {
    return signJsonObject(card, await this.#keys, this.#jkuFor(baseUrl));
  }

  /** The card signed with every key, as served at `baseUrl`. */
  async sign(card: AgentCard, baseUrl: string): Promise<AgentCard> {
    const jku = this.#jkuFor(baseUrl);
    return signAgentCard(card, await this.#keys, {
      ...(jku !== undefined ? { jku } : {}),
      a2aJsCompatible: this.#a2aJsCompatible,
    });
  }

  /** The public JWKS: the public half of every key. */
  async jwks(): Promise<{ keys: object[] }> {
    return { keys: (await this.#keys).map((k) => k.publicJwk) };
  }
}
