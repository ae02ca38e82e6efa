/**
 * The `WWW-Authenticate` challenge of a 401 (RFC 9110 §11.6.1; A2A §7: a refusal SHOULD say how to
 * authenticate), naming the schemes the configured authenticator accepts.
 */
import type { A2AError } from '../../../protocol/errors.js';
import { challengeOf } from '../../auth/request-auth.js';
import type { ResolvedHttpOptions } from '../http-options.js';

const NONE: Readonly<Record<string, string>> = Object.freeze({});

/** The headers an error answer adds: the challenge, when it refuses a credential and the scheme is known. */
export function authChallengeHeaders(
  err: A2AError,
  options: ResolvedHttpOptions,
): Readonly<Record<string, string>> {
  if (err.httpStatus !== 401) return NONE;
  const challenge = challengeOf(options.auth);
  return challenge === undefined ? NONE : { 'WWW-Authenticate': challenge };
}
