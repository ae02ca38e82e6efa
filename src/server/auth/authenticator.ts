/**
 * What an authenticator is (docs/guides/security.md, ADR 0075): something that maps a request to a principal and
 * the tenants that principal may use, and that says what the agent card must declare about it, so the card's
 * `securitySchemes` and `securityRequirements` are derived from the authenticators that run (A2A §7, ADR 0076).
 */
import type { SecurityRequirement, SecurityScheme } from '../../protocol/agent-card.js';

/** Every tenant (`'*'`), or exactly these (`''` is the default tenant: a request that names none). */
export type TenantGrant = '*' | readonly string[];

/** Who a request acts for, once its credential held. */
export interface Identity {
  /** The principal: tasks, keys and push configs are scoped to it (docs/semantics.md §1 "Scope"). */
  readonly principal: string;
  /** The tenants this principal may use; any other is refused with PERMISSION_DENIED (403). */
  readonly tenants: TenantGrant;
}

/**
 * What an authenticator made of a request:
 * - `absent`: it saw no credential of its kind (the next authenticator of an `anyOf` looks);
 * - `accepted`: the credential held;
 * - `refused`: a credential of its kind that does not hold (never passed on to another authenticator);
 * - `unavailable`: it could not decide now (a key set that cannot be fetched): 503, retry later.
 * `detail` says why, for the error message; it never contains the credential.
 */
export type Recognition =
  | { readonly kind: 'absent' }
  | { readonly kind: 'accepted'; readonly identity: Identity }
  | { readonly kind: 'refused'; readonly detail: string }
  | { readonly kind: 'unavailable'; readonly detail: string };

const BRAND = Symbol.for('a2a-once.Authenticator');

/** A ready authenticator: `bearerTokens`, `apiKeys`, `jwtBearer` or `anyOf` of them. */
export interface Authenticator {
  readonly [BRAND]: true;
  /** What the card's `securitySchemes` must hold for it, by scheme name. */
  readonly securitySchemes: Readonly<Record<string, SecurityScheme>>;
  /** The card's `securityRequirements` for it: any one of them satisfied is enough (OpenAPI semantics). */
  readonly securityRequirements: readonly SecurityRequirement[];
  /** The `WWW-Authenticate` challenges a refused request gets (RFC 9110 §11.6.1), one per scheme. */
  readonly challenges: readonly string[];
  /** Looks at a request's credential. Never throws for a bad credential: it answers `refused`. */
  recognise(request: Request): Recognition | Promise<Recognition>;
}

/** The parts an authenticator is made of. */
export interface AuthenticatorParts {
  securitySchemes: Record<string, SecurityScheme>;
  securityRequirements: SecurityRequirement[];
  challenges: string[];
  recognise: Authenticator['recognise'];
}

/** Builds an Authenticator (frozen, branded so the HTTP options can tell it from a bare hook function). */
export function authenticator(parts: AuthenticatorParts): Authenticator {
  return Object.freeze({
    [BRAND]: true as const,
    securitySchemes: Object.freeze({ ...parts.securitySchemes }),
    securityRequirements: Object.freeze([...parts.securityRequirements]),
    challenges: Object.freeze([...parts.challenges]),
    recognise: parts.recognise,
  });
}

/** Whether a value is a ready authenticator (rather than the bare `authenticate` hook function). */
export function isAuthenticator(value: unknown): value is Authenticator {
  return typeof value === 'object' && value !== null && BRAND in value;
}

/** A scheme name as the card writes it: a non-empty token, so a client can refer to it. */
export function checkSchemeName(name: string, what: string): string {
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(name))
    throw new RangeError(`${what}: scheme name must be 1 to 64 letters, digits, '.', '_' or '-'`);
  return name;
}

/** One requirement naming one scheme with no scopes. */
export function requirementOf(scheme: string): SecurityRequirement {
  return { schemes: { [scheme]: { list: [] } } };
}
