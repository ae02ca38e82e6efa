/**
 * `anyOf`: several authenticators, tried in order; the first that recognises the credential decides (ADR 0075).
 * A credential one recognises and finds bad is refused there, never passed to the next, so a forged JWT cannot
 * fall through to a more lenient check. The card lists every scheme, each as an alternative requirement.
 */
import type { SecurityScheme } from '../../protocol/agent-card.js';
import { authenticator, type Authenticator, type Recognition } from './authenticator.js';

/**
 * Any of several authenticators.
 * @example
 * const auth = anyOf(jwtBearer({ jwksUrl, issuer, audience }), apiKeys({ keys: [{ token: key, principal: 'ops' }] }));
 */
export function anyOf(...authenticators: readonly Authenticator[]): Authenticator {
  if (authenticators.length === 0) throw new RangeError('anyOf: give at least one authenticator');
  const schemes: Record<string, SecurityScheme> = {};
  for (const a of authenticators) {
    for (const [name, scheme] of Object.entries(a.securitySchemes)) {
      if (name in schemes && JSON.stringify(schemes[name]) !== JSON.stringify(scheme))
        throw new RangeError(`anyOf: two authenticators declare scheme '${name}'; give one a scheme name`);
      schemes[name] = scheme;
    }
  }
  const seen = new Set<string>();
  const requirements = authenticators
    .flatMap((a) => a.securityRequirements)
    .filter((r) => {
      const k = JSON.stringify(r);
      return seen.has(k) ? false : (seen.add(k), true);
    });
  return authenticator({
    securitySchemes: schemes,
    securityRequirements: requirements,
    challenges: [...new Set(authenticators.flatMap((a) => a.challenges))],
    recognise: (request) => first(authenticators, 0, request),
  });
}

/** The first recognition that is not `absent`, synchronously while each answer is. */
function first(
  list: readonly Authenticator[],
  i: number,
  request: Request,
): Recognition | Promise<Recognition> {
  for (; i < list.length; i++) {
    const r = list[i]!.recognise(request);
    if (r instanceof Promise) {
      const next = i + 1;
      return r.then((v) => (v.kind === 'absent' ? first(list, next, request) : v));
    }
    if (r.kind !== 'absent') return r;
  }
  return { kind: 'absent' };
}
