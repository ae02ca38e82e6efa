/**
 * Who may call (docs/guides/security.md): ready authenticators, their composition, and the card's security
 * derived from them.
 */
export {
  isAuthenticator,
  type Authenticator,
  type Identity,
  type Recognition,
  type TenantGrant,
} from './authenticator.js';
export { bearerTokens, type BearerTokensOptions } from './bearer-tokens.js';
export { apiKeys, type ApiKeysOptions } from './api-keys.js';
export { jwtBearer, DEFAULT_JWT_ALGORITHMS, type JwtBearerOptions } from './jwt-bearer.js';
export { anyOf } from './any-of.js';
export { secureCard } from './card-security.js';
export { tokenPrincipalName } from './token-digest.js';
export type { TokenGrant } from './token-grants.js';
export type { AuthenticateHook } from './request-auth.js';
