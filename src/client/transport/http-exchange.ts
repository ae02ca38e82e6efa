/**
 * One HTTP exchange, with its failures classified (docs/semantics.md §7): `fetch` errors and bodies that fail to arrive
 * are ambiguous or not sent (`transport-error.ts`); what a status says is `failure-kind.ts`'s to decide.
 */
import type { AttemptSignal, FetchLike } from './transport.js';
import { TransportError, classifyFetchError } from './transport-error.js';

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
  scope: AttemptSignal,
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
export async function readText(res: Response, scope: AttemptSignal): Promise<string> {
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

/** Whether a media type is an SSE stream. */
export function isEventStream(res: Response): boolean {
  return (res.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
}
