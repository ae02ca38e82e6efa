/**
 * `bearerTokens`: opaque bearer tokens from a list (`Authorization: Bearer <token>`, RFC 6750), each mapped to a
 * principal and its tenants, kept as SHA-256 digests and compared in constant time (ADR 0075). The card gets an
 * `httpAuthSecurityScheme` with scheme `Bearer` (ADR 0076).
 */
import { authenticator, checkSchemeName, requirementOf, type Authenticator } from './authenticator.js';
import { authorizationCredentials } from './credentials.js';
import { grantTable, type TokenGrant } from './token-grants.js';

/** Options of `bearerTokens`. */
export interface BearerTokensOptions {
  /** The tokens and what each grants. */
  readonly tokens: readonly TokenGrant[];
  /** The scheme's name in the card's `securitySchemes` (default `bearer`). */
  readonly scheme?: string;
  /** The scheme's description in the card. */
  readonly description?: string;
}

/**
 * Bearer tokens from a list. Any `Authorization: Bearer` credential is its to judge: a token not in the list is
 * refused (401), never passed on, so in an `anyOf` put `jwtBearer` before it.
 * @example
 * const auth = bearerTokens({ tokens: [{ token: process.env.AGENT_TOKEN!, principal: 'ci', tenants: '*' }] });
 */
export function bearerTokens(options: BearerTokensOptions): Authenticator {
  const scheme = checkSchemeName(options.scheme ?? 'bearer', 'bearerTokens');
  const table = grantTable(options.tokens, 'bearerTokens.tokens');
  return authenticator({
    securitySchemes: {
      [scheme]: {
        httpAuthSecurityScheme: {
          scheme: 'Bearer',
          description: options.description ?? 'A bearer token issued by the operator of this agent',
        },
      },
    },
    securityRequirements: [requirementOf(scheme)],
    challenges: ['Bearer realm="a2a"'],
    recognise(request) {
      const token = authorizationCredentials(request, 'Bearer');
      if (token === undefined) return { kind: 'absent' };
      const identity = token === '' ? undefined : table.find(token);
      return identity
        ? { kind: 'accepted', identity }
        : { kind: 'refused', detail: 'the bearer token is not valid' };
    },
  });
}
