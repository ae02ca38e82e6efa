/**
 * Where a credential travels, read from the card's `securitySchemes` and `securityRequirements` (A2A §7, ADR
 * 0079). The requirements are tried in order (any one suffices, A2A v1.0), then the schemes in the card's order
 * when it lists no requirement; the first that one credential can satisfy decides:
 * - `apiKeySecurityScheme` with `location: header`: that header;
 * - `httpAuthSecurityScheme` `Bearer`, `oauth2SecurityScheme`, `openIdConnectSecurityScheme`: a bearer token
 *   (OAuth 2 and OpenID Connect access tokens are bearer tokens, RFC 6750).
 * A requirement naming several schemes at once, HTTP `Basic`, an API key in a query or cookie, and mutual TLS
 * cannot be met by one header value and are skipped. A card that declares no scheme (or no card) means bearer.
 * (`client-credentials.ts` turns a credential and a placement into headers.)
 */
import type { AgentCard, SecurityScheme } from '../../protocol/agent-card.js';

/** Where a scheme-agnostic token goes. */
export type CredentialPlacement =
  | { readonly kind: 'bearer' }
  | { readonly kind: 'header'; readonly header: string }
  /** The card declares schemes, none of which one header value can satisfy. */
  | { readonly kind: 'none'; readonly schemes: readonly string[] };

/** The header of `X-API-Key`-style schemes when neither the caller nor the card names one. */
export const DEFAULT_API_KEY_HEADER = 'X-API-Key';

const BEARER: CredentialPlacement = { kind: 'bearer' };

/** Where a token goes for one scheme, or undefined when one header value cannot satisfy it. */
function schemePlacement(scheme: SecurityScheme | undefined): CredentialPlacement | undefined {
  if (scheme === undefined) return undefined;
  const key = scheme.apiKeySecurityScheme;
  if (key !== undefined)
    return key.location.toLowerCase() === 'header' && key.name.trim() !== ''
      ? { kind: 'header', header: key.name.trim() }
      : undefined;
  const http = scheme.httpAuthSecurityScheme;
  if (http !== undefined) return http.scheme.toLowerCase() === 'bearer' ? BEARER : undefined;
  if (scheme.oauth2SecurityScheme !== undefined || scheme.openIdConnectSecurityScheme !== undefined)
    return BEARER;
  return undefined;
}

/** Where a scheme-agnostic `{ token }` goes for `card` (bearer without a card or without schemes). */
export function placementOf(
  card: Pick<AgentCard, 'securitySchemes' | 'securityRequirements'> | undefined,
): CredentialPlacement {
  const schemes = card?.securitySchemes ?? {};
  const names = Object.keys(schemes);
  if (names.length === 0) return BEARER;
  const requirements = card?.securityRequirements ?? [];
  const candidates =
    requirements.length > 0
      ? requirements.flatMap((r) => {
          const named = Object.keys(r.schemes ?? {});
          return named.length === 1 ? named : [];
        })
      : names;
  for (const name of candidates) {
    const placement = schemePlacement(schemes[name]);
    if (placement !== undefined) return placement;
  }
  return { kind: 'none', schemes: names };
}
