/**
 * What both bindings do before dispatch: authenticate, check the version, read the requested extensions, and
 * build the CallContext.
 */
import type { CallContext } from '../call-context.js';
import type { ResolvedHttpOptions } from './http-options.js';
import { checkVersion, requestedExtensions } from './service-params.js';

/** The CallContext of an HTTP request (throws the A2AError that refuses it). */
export async function setupCall(
  req: Request,
  url: URL,
  tenant: string,
  options: ResolvedHttpOptions,
  signal: AbortSignal | undefined,
): Promise<CallContext> {
  checkVersion(req.headers, url);
  const principal = options.authenticate ? await options.authenticate(req) : undefined;
  return {
    tenant,
    ...(principal !== undefined ? { principal } : {}),
    requestedExtensions: requestedExtensions(req.headers),
    activatedExtensions: new Set(),
    ...(signal ? { signal } : {}),
  };
}
