/**
 * What both bindings do before dispatch: authenticate the caller (before the body is read, ADR 0075), check the
 * version, check the tenant against the caller's grant, read the requested extensions, and build the CallContext.
 */
import { LEASE_RENEWAL_HEADER } from '../../delegation/delegation-wire.js';
import type { A2AMethod } from '../../protocol/constants.js';
import { LastEventIdInvalidError, UnauthenticatedError } from '../../protocol/errors.js';
import { LAST_EVENT_ID_HEADER, parseEventSequence } from '../../protocol/event-sequence.js';
import { authenticateRequest, checkTenant, type Caller } from '../auth/request-auth.js';
import type { CallContext } from '../call-context.js';
import type { ResolvedHttpOptions } from '../http/http-options.js';
import { checkVersion, requestedExtensions, supportedVersions } from './service-params.js';

/**
 * The caller of a request, or the A2AError that refuses it (401, or 503 when a key set cannot be fetched). A
 * promise only when a check has to wait: without authentication, or with a token list, a send's path has no
 * promise more.
 */
export function callerOf(req: Request, options: ResolvedHttpOptions): Caller | Promise<Caller> {
  return options.auth ? authenticateRequest(req, options.auth) : undefined;
}

/**
 * The CallContext of an HTTP request from an authenticated `caller` (throws the A2AError that refuses it). The
 * extended card goes only to an authenticated caller when the host authenticates at all (A2A §8, ADR 0076).
 */
export function setupCall(
  /** Only its headers are read: a gRPC call passes its metadata as headers, with no `Request` built. */
  req: Pick<Request, 'headers'>,
  url: URL,
  method: A2AMethod,
  tenant: string,
  caller: Caller,
  options: ResolvedHttpOptions,
  signal: AbortSignal | undefined,
  /** The version the request's shape is in (`0.3` for a v0.3 method name, ADR 0097). */
  wireVersion?: string,
): CallContext {
  checkVersion(req.headers, url, wireVersion, supportedVersions(options));
  checkTenant(caller, tenant);
  if (caller === undefined && options.auth && method === 'GetExtendedAgentCard')
    throw new UnauthenticatedError('Authentication required: the extended card is for authenticated callers');
  const ctx: { -readonly [K in keyof CallContext]: CallContext[K] } = {
    tenant,
    requestedExtensions: requestedExtensions(req.headers),
    activatedExtensions: new Set(),
    notes: {},
  };
  // Assigned rather than spread from `cond ? {…} : {}`: that allocates an object per request even when empty.
  if (caller !== undefined) ctx.principal = caller.principal;
  if (signal) ctx.signal = signal;
  if (req.headers.has(LEASE_RENEWAL_HEADER)) ctx.renewsDelegationLease = true;
  // Read for SubscribeToTask only: the one call that resumes a stream (ADR 0125). Every binding passes here (gRPC
  // with its metadata as headers), so the header is read once, the same way, for all of them.
  if (method === 'SubscribeToTask') {
    const after = resumeAfterOf(req.headers);
    if (after !== undefined) ctx.resumeAfter = after;
  }
  return ctx;
}

/**
 * The event sequence a `Last-Event-ID` header names, or undefined without one. A value that is not a sequence
 * is refused (LAST_EVENT_ID_INVALID), never read as "from the start": the caller would see events twice.
 */
export function resumeAfterOf(headers: Pick<Headers, 'get'>): number | undefined {
  const raw = headers.get(LAST_EVENT_ID_HEADER);
  if (raw === null) return undefined;
  const seq = parseEventSequence(raw);
  if (seq === undefined) {
    throw new LastEventIdInvalidError({
      message: 'Last-Event-ID must be the decimal sequence of an event this stream sent',
      // The value is the caller's own and bounded by the header size; shown cut short all the same.
      metadata: { lastEventId: raw.slice(0, 64) },
    });
  }
  return seq;
}
