/**
 * What both bindings do before dispatch: authenticate, check the version, read the requested extensions, and
 * build the CallContext.
 */
import { LEASE_RENEWAL_HEADER } from '../../delegation/delegation-wire.js';
import type { CallContext } from '../call-context.js';
import type { ResolvedHttpOptions } from './http-options.js';
import { checkVersion, requestedExtensions } from './service-params.js';

/**
 * The CallContext of an HTTP request (throws the A2AError that refuses it). A promise only when an
 * `authenticate` hook has to run: without one, nothing here waits, and a send's path has one promise less.
 */
export function setupCall(
  req: Request,
  url: URL,
  tenant: string,
  options: ResolvedHttpOptions,
  signal: AbortSignal | undefined,
): CallContext | Promise<CallContext> {
  checkVersion(req.headers, url);
  const authenticate = options.authenticate;
  if (!authenticate) return contextOf(req, tenant, undefined, signal);
  return Promise.resolve(authenticate(req)).then((principal) => contextOf(req, tenant, principal, signal));
}

function contextOf(
  req: Request,
  tenant: string,
  principal: string | undefined,
  signal: AbortSignal | undefined,
): CallContext {
  const ctx: { -readonly [K in keyof CallContext]: CallContext[K] } = {
    tenant,
    requestedExtensions: requestedExtensions(req.headers),
    activatedExtensions: new Set(),
  };
  // Assigned rather than spread from `cond ? {…} : {}`: that allocates an object per request even when empty.
  if (principal !== undefined) ctx.principal = principal;
  if (signal) ctx.signal = signal;
  if (req.headers.has(LEASE_RENEWAL_HEADER)) ctx.renewsDelegationLease = true;
  return ctx;
}
