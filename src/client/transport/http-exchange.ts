/**
 * One HTTP exchange, with its failures classified (docs/semantics.md §7): `fetch` errors and bodies that fail to arrive
 * are ambiguous or not sent (`transport-error.ts`); what a status says is `failure-kind.ts`'s to decide.
 *
 * Redirects are never followed by `fetch` (ADR 0070): a followed 307 would re-POST a keyed send, its key and the
 * caller's credentials to whatever origin the `Location` names, and the client would take that origin's task for
 * the answer. An A2A call that meets a redirect ends with a definite `ClientError` `REDIRECT_REFUSED` naming the
 * `Location`; only the card fetch asks for the redirect back, to follow it itself within one origin.
 */
import { ClientError } from './client-error.js';
import type { AttemptSignal, FetchLike } from './transport.js';
import { classifyFetchError } from './transport-error.js';

/** An HTTP request to make. */
export interface HttpRequest {
  readonly url: string;
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** `refuse` (default): a redirect answer throws `REDIRECT_REFUSED`; `return`: it is returned to the caller. */
  readonly redirects?: 'refuse' | 'return';
}

/** Whether an answer is a redirect (`redirect: 'manual'` gives the 3xx itself; a browser, an opaque one). */
export function isRedirect(res: Response): boolean {
  return res.type === 'opaqueredirect' || (res.status >= 300 && res.status < 400 && res.status !== 304);
}

/** Where a redirect points, resolved against the request's URL, or undefined when it does not say. */
export function redirectTarget(res: Response, requestUrl: string): string | undefined {
  const location = res.headers.get('location');
  if (location === null || location.trim() === '') return undefined;
  try {
    return new URL(location.trim(), requestUrl).toString();
  } catch {
    return undefined;
  }
}

/** Drops an answer's body unread (a redirect's, or one refused for its size). */
export function discardBody(res: Response): void {
  res.body?.cancel().catch(() => undefined);
}

/** The refusal of a redirect: definite, naming the status and the `Location`. */
export function redirectRefused(res: Response, requestUrl: string, why: string): ClientError {
  const location = redirectTarget(res, requestUrl);
  const where = location === undefined ? 'without a usable Location' : `to ${location}`;
  return new ClientError(
    'REDIRECT_REFUSED',
    `${requestUrl} answered HTTP ${res.status} redirecting ${where}; ${why}`,
    location === undefined ? { httpStatus: res.status } : { httpStatus: res.status, location },
  );
}

/** Sends a request; resolves with the response once its headers arrived. */
export async function exchange(
  fetchImpl: FetchLike,
  req: HttpRequest,
  scope: AttemptSignal,
): Promise<Response> {
  let res: Response;
  try {
    const init: RequestInit = {
      method: req.method,
      headers: req.headers,
      signal: scope.signal,
      redirect: 'manual',
    };
    if (req.body !== undefined) init.body = req.body;
    res = await fetchImpl(req.url, init);
  } catch (err) {
    const translated = scope.translate(err);
    throw translated === err ? classifyFetchError(err, req.url) : translated;
  }
  if (req.redirects !== 'return' && isRedirect(res)) {
    discardBody(res);
    throw redirectRefused(
      res,
      req.url,
      'the client does not follow redirects of A2A calls (the request, its key and its headers would go elsewhere)',
    );
  }
  return res;
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

/** Whether a media type is an SSE stream. */
export function isEventStream(res: Response): boolean {
  return (res.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
}
