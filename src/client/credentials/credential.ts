/**
 * What the client says about who it is, to a server that authenticates (A2A §7, ADR 0079): a credential, or a
 * provider of one called before each attempt. The values are secrets: nothing here puts one in an error message,
 * and a value that could not travel in a header is refused before `fetch` sees it (an invalid header value makes
 * `fetch` throw an error that quotes it).
 */
import { ClientError } from '../transport/client-error.js';

/**
 * A credential:
 * - `{ bearer }`: `Authorization: Bearer <bearer>` (RFC 6750), whatever the card says;
 * - `{ apiKey, header? }`: the key in `header`; without one, in the header of the card's API-key scheme, else
 *   `X-API-Key`;
 * - `{ token }`: sent the way the card's security schemes say (an API-key header, or a bearer token for HTTP
 *   bearer, OAuth 2 and OpenID Connect schemes); a bearer token when the card declares no scheme or there is no card.
 */
export type Credential =
  | { readonly bearer: string }
  | { readonly apiKey: string; readonly header?: string }
  | { readonly token: string };

/** What a credential provider is told before an attempt. */
export interface CredentialRequest {
  /** `true` after the peer refused the last credential (HTTP 401): a cached credential must not be given again. */
  readonly refresh: boolean;
  /** The credential the peer refused, on a refresh. */
  readonly refused: Credential | undefined;
  /** Fires when the call is cancelled or runs past its deadline. */
  readonly signal: AbortSignal;
}

/**
 * Gives the credential of the next attempt. Called before every attempt, and once more after a 401 with
 * `refresh: true`; what it throws ends the call with `ClientError` `CREDENTIAL_UNAVAILABLE` (nothing was sent).
 */
export type CredentialProvider = (request: CredentialRequest) => Credential | Promise<Credential>;

/** The `credentials` option: a fixed credential, or a provider (`oauth2ClientCredentials` makes one). */
export type CredentialsOption = Credential | CredentialProvider;

/**
 * What a header value may hold here: visible ASCII and inner spaces, so no CR/LF can split the request and no
 * character makes `fetch` refuse it (quoting it in its error).
 */
const HEADER_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/** A header name (RFC 9110 §5.1 token). */
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

function invalid(where: string, why: string): ClientError {
  return new ClientError('INVALID_CREDENTIAL', `${where}: ${why} (the value is not shown)`);
}

function checkValue(value: unknown, field: string, where: string): string {
  if (typeof value !== 'string') throw invalid(where, `${field} must be a string`);
  if (!HEADER_VALUE.test(value))
    throw invalid(
      where,
      `${field} must be non-empty visible ASCII without leading or trailing spaces or control characters`,
    );
  return value;
}

/**
 * `value` as a credential, or `ClientError` `INVALID_CREDENTIAL` naming what is wrong and never the value.
 * `where` names its source (`credentials`, or the provider).
 */
export function checkCredential(value: unknown, where: string): Credential {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalid(where, 'a credential is { bearer }, { apiKey, header? } or { token }');
  const v = value as Record<string, unknown>;
  const fields = ['bearer', 'apiKey', 'token'].filter((f) => v[f] !== undefined);
  if (fields.length !== 1) throw invalid(where, 'a credential has exactly one of bearer, apiKey and token');
  if (v.bearer !== undefined) return { bearer: checkValue(v.bearer, 'bearer', where) };
  if (v.token !== undefined) return { token: checkValue(v.token, 'token', where) };
  const apiKey = checkValue(v.apiKey, 'apiKey', where);
  if (v.header === undefined) return { apiKey };
  if (
    typeof v.header !== 'string' ||
    !HEADER_NAME.test(v.header) ||
    v.header.toLowerCase() === 'authorization'
  )
    throw invalid(where, 'header must be an HTTP header name other than Authorization');
  return { apiKey, header: v.header };
}

/** Whether two credentials are the same (a provider compares the refused one with what it holds). */
export function sameCredential(a: Credential | undefined, b: Credential | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  const ka = a as Partial<Record<'bearer' | 'apiKey' | 'token' | 'header', string>>;
  const kb = b as Partial<Record<'bearer' | 'apiKey' | 'token' | 'header', string>>;
  return (
    ka.bearer === kb.bearer && ka.apiKey === kb.apiKey && ka.token === kb.token && ka.header === kb.header
  );
}
