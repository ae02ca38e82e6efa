/**
 * One HTTP exchange, with its failures classified (SEMANTICS §7): `fetch` errors, statuses that refuse up front
 * (429, 503), statuses that leave the outcome open (502, 504), and bodies that fail to arrive or parse.
 */
import type { AttemptScope } from './call-scope.js';
import { parseRetryAfter } from './retry-after.js';
import { TransportError, classifyFetchError } from './transport-error.js';

/** The subset of the global `fetch` the client uses (injectable, e.g. for a custom dispatcher). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** An HTTP request to make. */
export interface HttpRequest {
  readonly url: string;
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** Sends a request; resolves with the response once its headers arrived. */
export async function exchange(
  fetchImpl: FetchLike,
  req: HttpRequest,
  scope: AttemptScope,
): Promise<Response> {
  try {
    const init: RequestInit = {
      method: req.method,
      headers: req.headers,
      signal: scope.signal,
      redirect: 'follow',
    };
    if (req.body !== undefined) init.body = req.body;
    return await fetchImpl(req.url, init);
  } catch (err) {
    const translated = scope.translate(err);
    throw translated === err ? classifyFetchError(err) : translated;
  }
}

/** Reads the whole body as text; a body that fails to arrive is ambiguous (the peer answered something). */
export async function readText(res: Response, scope: AttemptScope): Promise<string> {
  try {
    return await res.text();
  } catch (err) {
    const translated = scope.translate(err);
    if (translated !== err) throw translated;
    throw new TransportError('ambiguous', 'BAD_BODY', 'the response body did not arrive', {
      cause: err,
      httpStatus: res.status,
    });
  }
}

/** Parses JSON, or returns undefined (the caller decides what an unreadable body means). */
export function tryParseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** `Retry-After` of a response, in ms. */
export function retryAfterOf(res: Response): number | undefined {
  return parseRetryAfter(res.headers.get('retry-after'));
}

/**
 * The transport-level failure an HTTP status means by itself, whatever the body says: 429 and 503 refuse up
 * front; 502 and 504 come from a gateway that may already have forwarded the request (a2a-rust treats them
 * the same way). `cause` is the A2A error the body carried, if any, so it can surface when retries run out.
 */
export function statusFailure(res: Response, cause?: unknown): TransportError | undefined {
  const opts = { httpStatus: res.status, retryAfterMs: retryAfterOf(res), cause };
  switch (res.status) {
    case 429:
      return new TransportError('refused', 'RATE_LIMITED', 'the peer refused the request (HTTP 429)', opts);
    case 503:
      return new TransportError('refused', 'UNAVAILABLE', 'the peer refused the request (HTTP 503)', opts);
    case 502:
      return new TransportError(
        'ambiguous',
        'BAD_GATEWAY',
        'a gateway failed after forwarding (HTTP 502)',
        opts,
      );
    case 504:
      return new TransportError('ambiguous', 'GATEWAY_TIMEOUT', 'a gateway timed out (HTTP 504)', opts);
    default:
      return undefined;
  }
}

/** Whether a media type is an SSE stream. */
export function isEventStream(res: Response): boolean {
  return (res.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
}
