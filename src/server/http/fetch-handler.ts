/**
 * The server core as a web-standard function, `(Request) => Promise<Response>`: the agent card, the JSON-RPC
 * endpoint and the REST routes. Node, Hono, Bun or a worker runtime serve it through a thin adapter.
 */
import { AGENT_CARD_PATH } from '../../protocol/constants.js';
import { A2AError, InternalError, MethodNotFoundError, toA2AError } from '../../protocol/errors.js';
import type { RequestHandler } from '../request-handler.js';
import { secureCard } from '../auth/card-security.js';
import { CardRoute } from './card/card-route.js';
import { cardFormFor } from './card/card-version.js';
import { JwksRoute } from './card/jwks-route.js';
import { resolveHttpOptions, type CompatVersion, type HttpOptions } from './http-options.js';
import { handleJsonRpc } from './jsonrpc/jsonrpc-binding.js';
import { handleRest, restErrorResponse } from './rest/rest-binding.js';
import { matchRestRoute } from './rest/rest-routes.js';
import { v03RestRouteFor } from './rest/rest-v03-route.js';
import { v03RestErrorResponse } from './rest/rest-v03-error.js';
import { responseMediaType } from './wire/media-type.js';
import { logInternalAnswer } from '../observability/error-log.js';
import { jsonLineLogger } from '../observability/logger.js';
import { probeAnswer, type ReadinessProbe } from './probes/probes.js';

/** A fetch-style request handler. */
export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * Builds the HTTP surface of a RequestHandler. Unexpected errors it answers go to the handler's logger, or to
 * stderr as JSON lines when the handler has none (ADR 0029).
 */
export function createFetchHandler(
  handler: RequestHandler,
  httpOptions: HttpOptions = {},
  /** What `/readyz` checks (`createA2AServer` passes the store, recovery and drain checks; ADR 0089). */
  readiness?: ReadinessProbe,
  /** Older protocol versions served besides 1.0 (docs/guides/v03-peers.md). */
  compat: readonly CompatVersion[] = [],
): FetchHandler {
  const options = resolveHttpOptions(httpOptions, compat);
  // The card states the schemes of the authenticator that runs (ADR 0076); `createA2AServer` already built the
  // handler's card that way, and then this is the same object. It is signed as served (ADR 0074).
  const served = secureCard(handler.agentCard, options.cardAuthenticator);
  const card = new CardRoute(served, options, undefined, handler.cardSigner, 'v1', handler.grpcInterface);
  // The v0.3 card, served to v0.3 peers when compat is on (ADR 0099).
  const v03Card = options.compat.includes('0.3')
    ? new CardRoute(served, options, undefined, handler.cardSigner, 'v0.3')
    : undefined;
  const jwks =
    handler.cardSigner?.jwksPath !== undefined ? new JwksRoute(handler.cardSigner, options) : undefined;
  const logger = handler.logger ?? jsonLineLogger();
  return async (req) => {
    let url: URL;
    try {
      url = new URL(req.url);
    } catch (err) {
      const answer = new InternalError({ message: 'Malformed request URL', cause: err });
      logInternalAnswer(logger, answer, { as: 'answer' });
      return restErrorResponse(answer, responseMediaType(req.headers.get('accept')));
    }
    try {
      const path = url.pathname;
      // Probes before anything else, authentication included: a load balancer carries no credential.
      const probe = probeAnswer(req.method, path, options, readiness);
      if (probe !== undefined) return await probe;
      if (req.method === 'GET' || req.method === 'HEAD') {
        const form = cardFormFor(req, path, AGENT_CARD_PATH, options);
        if (form !== undefined) return await (form === 'v0.3' && v03Card ? v03Card : card).handle(req, url);
      }
      if (jwks !== undefined && path === jwks.path && (req.method === 'GET' || req.method === 'HEAD'))
        return await jwks.handle(req);
      if (path === options.jsonRpcPath && req.method === 'POST')
        return await handleJsonRpc(req, url, handler, options, logger);
      // The v0.3 HTTP+JSON routes, under `/v1` (ADR 0100).
      const legacy = v03RestRouteFor(req, path, options);
      if (legacy !== undefined) {
        if ('route' in legacy) {
          const route = { method: legacy.route.v1, tenant: '', vars: {} };
          return await handleRest(req, url, route, handler, options, logger, legacy);
        }
        const err = new MethodNotFoundError({
          message: `No v0.3 route for ${req.method} ${path}`,
          metadata: { path },
        });
        if (legacy.miss === 'not-found') return v03RestErrorResponse(err);
        return v03RestErrorResponse(
          new A2AError(
            { ...err.spec, httpStatus: 405, defaultMessage: 'Method not allowed' },
            { message: `${req.method} is not allowed on ${path}` },
          ),
          { Allow: legacy.allow },
        );
      }
      const route = matchRestRoute(req.method, path);
      if ('miss' in route) {
        const err = new MethodNotFoundError({
          message: `No route for ${req.method} ${path}`,
          metadata: { path },
        });
        const mediaType = responseMediaType(req.headers.get('accept'));
        if (route.miss === 'not-found') return restErrorResponse(err, mediaType);
        return restErrorResponse(
          new A2AError(
            { ...err.spec, httpStatus: 405, defaultMessage: 'Method not allowed' },
            {
              message: `${req.method} is not allowed on ${path}`,
            },
          ),
          mediaType,
          { Allow: route.allow },
        );
      }
      return await handleRest(req, url, route, handler, options, logger);
    } catch (err) {
      // The bindings never throw; the card route and the route table could, through a bug.
      const answer = toA2AError(err);
      logInternalAnswer(logger, answer, { as: 'answer' });
      return restErrorResponse(answer, responseMediaType(req.headers.get('accept')));
    }
  };
}
