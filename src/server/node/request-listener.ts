/**
 * A node:http request listener over a fetch handler: a lazy Request in, the Response written out.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { FetchHandler } from '../http/fetch-handler.js';
import { jsonLineLogger, type ServerLogger } from '../observability/logger.js';
import { nodeRequest } from './node-request.js';
import { writeResponse } from './write-response.js';

const INTERNAL_ERROR_BODY = JSON.stringify({
  error: { code: 500, status: 'INTERNAL', message: 'Internal error' },
});

/**
 * The listener for `http.createServer`. `logger` receives the failures it answers with 500 (default: JSON lines
 * on stderr): an unexpected error is never silent (ADR 0029).
 */
export function createRequestListener(
  fetch: FetchHandler,
  logger: ServerLogger = jsonLineLogger(),
): RequestListener {
  return (incoming: IncomingMessage, out: ServerResponse) => {
    let req: Request;
    try {
      req = nodeRequest(incoming, out);
    } catch {
      out.writeHead(400).end();
      return;
    }
    fetch(req)
      .then((res) => writeResponse(res, out))
      .catch((err: unknown) => {
        // A handler that throws (ours never does) must not take the process down or leave the socket hanging.
        logger.error('request failed in the HTTP handler; answered 500', {
          method: incoming.method,
          path: incoming.url?.split('?')[0],
          error: err instanceof Error ? err.message : String(err),
          stack: err instanceof Error ? err.stack : undefined,
        });
        if (!out.headersSent) {
          out.writeHead(500, { 'Content-Type': 'application/json' });
          out.end(INTERNAL_ERROR_BODY);
        } else out.destroy();
      });
  };
}
