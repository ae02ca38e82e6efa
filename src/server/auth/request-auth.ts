/**
 * Authenticating a request at the HTTP edge (A2A §7, ADR 0075), before its body is read: a ready authenticator
 * or the bare `authenticate` hook, a missing or bad credential refused with 401 and a challenge, and the tenant
 * the request names checked against the principal's grant (403). Nothing here logs, and no error carries the
 * credential.
 */
import { PermissionDeniedError, ServerBusyError, UnauthenticatedError } from '../../protocol/errors.js';
import { isAuthenticator, type Authenticator, type Identity, type Recognition } from './authenticator.js';
import { grants } from './tenant-grant.js';

/**
 * The bare hook (kept from before ready authenticators existed): a principal string is a principal with no tenant
 * restriction; `undefined` is an anonymous caller; a thrown `UnauthenticatedError` refuses the request.
 */
export type AuthenticateHook = (request: Request) => string | undefined | Promise<string | undefined>;

/** How the HTTP layer authenticates: a ready authenticator, or the bare hook. */
export type RequestAuth =
  | { readonly kind: 'authenticator'; readonly authenticator: Authenticator; readonly challenge: string }
  | { readonly kind: 'hook'; readonly hook: AuthenticateHook };

/** The caller of a request: who it is, or undefined for an anonymous one (no authentication configured). */
export type Caller = Identity | undefined;

/** What `http.authenticate` was given, resolved once. */
export function resolveRequestAuth(
  value: Authenticator | AuthenticateHook | undefined,
): RequestAuth | undefined {
  if (value === undefined) return undefined;
  if (isAuthenticator(value))
    return { kind: 'authenticator', authenticator: value, challenge: value.challenges.join(', ') };
  if (typeof value === 'function') return { kind: 'hook', hook: value };
  throw new RangeError(
    'http.authenticate must be an authenticator (bearerTokens, jwtBearer, ...) or a function',
  );
}

/** The `WWW-Authenticate` value an UNAUTHENTICATED answer carries, if the scheme is known. */
export function challengeOf(auth: RequestAuth | undefined): string | undefined {
  return auth?.kind === 'authenticator' && auth.challenge !== '' ? auth.challenge : undefined;
}

/** The caller of `request`, or the A2AError that refuses it; a promise only when a check has to wait. */
export function authenticateRequest(request: Request, auth: RequestAuth): Caller | Promise<Caller> {
  if (auth.kind === 'hook') {
    return Promise.resolve(auth.hook(request)).then((principal) =>
      principal === undefined ? undefined : { principal, tenants: '*' as const },
    );
  }
  const r = auth.authenticator.recognise(request);
  return r instanceof Promise ? r.then(decide) : decide(r);
}

function decide(r: Recognition): Identity {
  switch (r.kind) {
    case 'accepted':
      return r.identity;
    case 'absent':
      throw new UnauthenticatedError(
        'Authentication required: send a credential of a scheme the agent card declares',
      );
    case 'refused':
      throw new UnauthenticatedError(`Authentication failed: ${r.detail}`);
    case 'unavailable':
      throw new ServerBusyError({ message: `Authentication unavailable: ${r.detail}`, retryAfterSeconds: 5 });
  }
}

/** Refuses a caller naming a tenant it was not granted (403; the answer says nothing of what the tenant holds). */
export function checkTenant(caller: Caller, tenant: string): void {
  if (caller === undefined || grants(caller.tenants, tenant)) return;
  throw new PermissionDeniedError(
    tenant === ''
      ? 'Permission denied: this credential is not granted the default tenant'
      : `Permission denied: this credential is not granted tenant '${tenant}'`,
  );
}
