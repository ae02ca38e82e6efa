/**
 * Reading credentials from a request (RFC 9110 §11.6.2, RFC 6750 §2.1): the `Authorization` header's scheme and
 * its credentials, and an API key header. Nothing here logs or echoes what it reads.
 */

/** The credentials of `Authorization: <scheme> <credentials>` when the scheme is `scheme` (case-insensitive). */
export function authorizationCredentials(request: Request, scheme: string): string | undefined {
  const value = request.headers.get('authorization');
  if (value === null) return undefined;
  const text = value.trim();
  const space = text.indexOf(' ');
  if (space <= 0) return undefined;
  if (text.slice(0, space).toLowerCase() !== scheme.toLowerCase()) return undefined;
  return text.slice(space + 1).trim();
}

/** A JWS in compact form (three base64url parts): what a JWT bearer token looks like, and an opaque one does not. */
export function looksLikeJws(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}
