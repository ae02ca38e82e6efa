/**
 * An agent's URL, checked before anything is fetched: `localhost:8080` parses as a URL whose scheme is
 * `localhost:`, and `127.0.0.1:8080` not at all, and either would reach `fetch` as an error that reads like a
 * failed connection (an ambiguous one, for a send). Only http and https name an A2A agent (A2A §4 "Transport
 * layer requirements"); anything else is a definite `INVALID_ARGUMENT`, nothing sent, with the URL the caller
 * most likely meant. A URL with user info is refused too: `fetch` would throw on it, with the password in its
 * message.
 */
import { ClientError } from './client-error.js';

/** What `url` most likely meant (`http://` in front of a bare host), or undefined when that does not parse. */
export function suggestedAgentUrl(url: string): string | undefined {
  const guess = `http://${url.replace(/^\/+/, '')}`;
  try {
    return new URL(guess).protocol === 'http:' ? guess : undefined;
  } catch {
    return undefined;
  }
}

/** The reason `url` cannot name an agent, or undefined when it can (an absolute http or https URL). */
export function agentUrlProblem(url: string): string | undefined {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed?.protocol === 'http:' || parsed?.protocol === 'https:') {
    if (parsed.username === '' && parsed.password === '') return undefined;
    // fetch refuses such a URL (and its error would repeat the password): said here, without the user info.
    parsed.username = '';
    parsed.password = '';
    return (
      `${JSON.stringify(parsed.toString())} was given with a user name or password in it; pass credentials ` +
      "with the client's `credentials` or `headers` option instead"
    );
  }
  // `localhost:8080` is a URL with the scheme `localhost:`: a port after the colon says it was a host.
  const bareHost = parsed === undefined || /^[a-z][a-z0-9+.-]*:\d/i.test(url);
  const suggestion = bareHost ? suggestedAgentUrl(url) : undefined;
  const what = bareHost ? 'has no scheme' : `uses ${parsed!.protocol.slice(0, -1)}, not http or https`;
  return `${JSON.stringify(url)} ${what}${suggestion !== undefined ? `; did you mean ${suggestion}?` : ''}`;
}

/** Throws `ClientError INVALID_ARGUMENT` (nothing sent) unless `url` is an absolute http or https URL. */
export function checkAgentUrl(url: string): void {
  const problem = agentUrlProblem(url);
  if (problem !== undefined) throw new ClientError('INVALID_ARGUMENT', `not an agent URL: ${problem}`);
}
