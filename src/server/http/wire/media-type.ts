/**
 * Media types across the A2A v1.0.0 / v1.0.1 split (ADR 0042). v1.0.0 peers send and expect `application/json`;
 * v1.0.1 made `application/a2a+json` the HTTP+JSON type. The server takes either on input, answers
 * `application/a2a+json` only to a request whose `Accept` names it, `application/json` otherwise, and refuses a
 * body of any other declared type with `ContentTypeNotSupportedError`: HTTP 400 by default, as v1.0.1's error
 * table says, or 415 (RFC 9110's status, and v1.0.0's table) when the host asks for it (ADR 0058).
 */
import { ACCEPT_A2A_OR_JSON, MEDIA_A2A_JSON, MEDIA_JSON } from '../../../protocol/constants.js';
import { A2AError, ERROR_SPECS, type A2AErrorSpec } from '../../../protocol/errors.js';

/**
 * ContentTypeNotSupported with HTTP 415, for hosts that keep A2A v1.0.0's table (ADR 0058). Reason and code are
 * v1.0.1's; only the HTTP status differs.
 */
const UNSUPPORTED_MEDIA_TYPE_415: A2AErrorSpec = Object.freeze({
  ...ERROR_SPECS.ContentTypeNotSupportedError,
  httpStatus: 415,
  defaultMessage: 'Unsupported media type',
});

/** Longest declared type quoted back in an error: the header is the caller's, the answer is bounded. */
const MAX_QUOTED = 100;

/**
 * Whether a request's `Content-Type` may carry an A2A JSON body: absent (or empty), `application/json` or
 * `application/a2a+json`, in any case, with any parameters (`; charset=utf-8`).
 */
export function isJsonContentType(ct: string | null): boolean {
  // The usual values, compared without splitting a string.
  if (ct === null || ct === MEDIA_JSON || ct === MEDIA_A2A_JSON || ct === '') return true;
  const semi = ct.indexOf(';');
  const base = (semi === -1 ? ct : ct.slice(0, semi)).trim().toLowerCase();
  return base === MEDIA_JSON || base === MEDIA_A2A_JSON || base === '';
}

/** The refusal of a request body declared as `ct`: HTTP 400 (A2A v1.0.1, the default) or 415 (v1.0.0). */
export function unsupportedMediaType(ct: string, status: 400 | 415 = 400): A2AError {
  const quoted = ct.length > MAX_QUOTED ? `${ct.slice(0, MAX_QUOTED)}…` : ct;
  const spec = status === 415 ? UNSUPPORTED_MEDIA_TYPE_415 : ERROR_SPECS.ContentTypeNotSupportedError;
  return new A2AError(spec, {
    message: `Content-Type ${quoted} is not supported: send ${MEDIA_A2A_JSON} or ${MEDIA_JSON}`,
    metadata: { contentType: quoted, supported: `${MEDIA_A2A_JSON}, ${MEDIA_JSON}` },
  });
}

/** Throws the refusal (HTTP `status`) unless the request's `Content-Type` is JSON. */
export function assertJsonContentType(req: Request, status: 400 | 415 = 400): void {
  const ct = req.headers.get('content-type');
  if (!isJsonContentType(ct)) throw unsupportedMediaType(ct!, status);
}

const NAMES_A2A_JSON = /application\/a2a\+json/i;

/**
 * The media type of a JSON answer to a request with this `Accept`: `application/a2a+json` when the request names
 * it (and does not prefer `application/json` to it by q-value), `application/json` otherwise: no `Accept`,
 * `*\/*`, `application/json`, or anything else (we answer JSON rather than 406: every A2A peer reads it).
 * Only an `Accept` that names `application/a2a+json` is parsed; the usual headers cost one comparison.
 */
export function responseMediaType(accept: string | null): string {
  if (accept === null || accept === MEDIA_JSON || accept === '*/*') return MEDIA_JSON;
  if (accept === ACCEPT_A2A_OR_JSON || accept === MEDIA_A2A_JSON) return MEDIA_A2A_JSON;
  if (!NAMES_A2A_JSON.test(accept)) return MEDIA_JSON;
  return prefersA2aJson(accept) ? MEDIA_A2A_JSON : MEDIA_JSON;
}

/**
 * RFC 9110 §12.5.1 between the two types we can send: the q of `application/a2a+json` (named explicitly) against
 * the q of the most specific range that matches `application/json` (`application/json`, else `application/*`,
 * else `*\/*`). A tie goes to `application/a2a+json`: the client named it, and v1.0.1 prefers it.
 */
function prefersA2aJson(accept: string): boolean {
  let qA2a = -1;
  let qJson = -1;
  let qAppAny = -1;
  let qAny = -1;
  for (const range of accept.split(',')) {
    const semi = range.indexOf(';');
    const type = (semi === -1 ? range : range.slice(0, semi)).trim().toLowerCase();
    const q = semi === -1 ? 1 : qOf(range.slice(semi + 1));
    if (type === MEDIA_A2A_JSON) qA2a = Math.max(qA2a, q);
    else if (type === MEDIA_JSON) qJson = Math.max(qJson, q);
    else if (type === 'application/*') qAppAny = Math.max(qAppAny, q);
    else if (type === '*/*') qAny = Math.max(qAny, q);
  }
  const json = qJson >= 0 ? qJson : qAppAny >= 0 ? qAppAny : Math.max(qAny, 0);
  return qA2a > 0 && qA2a >= json;
}

/** The `q` parameter of a range's parameters (1 when absent; 0 when malformed, as a range nobody wants). */
function qOf(params: string): number {
  for (const p of params.split(';')) {
    const eq = p.indexOf('=');
    if (eq === -1 || p.slice(0, eq).trim().toLowerCase() !== 'q') continue;
    const v = p.slice(eq + 1).trim();
    if (!/^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/.test(v)) return 0;
    return Number(v);
  }
  return 1;
}
