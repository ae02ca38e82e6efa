/**
 * A node:http request listener over a fetch handler: a lazy Request in, the Response written out.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { FetchHandler } from '../http/fetch-handler.js';
import { nodeRequest } from './node-request.js';
import { writeResponse } from './write-response.js';

const INTERNAL_ERROR_BODY = JSON.stringify({
  error: { code: 500, status: 'INTERNAL', message: 'Internal error' },
});

/** The listener for `http.createServer`. */
export function createRequestListener(fetch: FetchHandler): RequestListener {
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
      .catch(() => {
        // A handler that throws (ours never does) must not take the process down or leave the socket hanging.
        if (!out.headersSent) {
          out.writeHead(500, { 'Content-Type': 'application/json' });
          out.end(INTERNAL_ERROR_BODY);
        } else out.destroy();
      });
  };
}
