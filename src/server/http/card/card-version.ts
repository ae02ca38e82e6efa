/**
 * Which card a request for the agent card gets (ADR 0099). With v0.3 served, a request without `A2A-Version`
 * (which the spec reads as 0.3) or with a version in [0.3, 1.0) gets the v0.3 card, as `@a2a-js/sdk` does; any
 * other version gets the v1.0 card. Without compat every request gets the v1.0 card. The v0.2/0.3 fallback path
 * `/.well-known/agent.json` always answers the v0.3 card, and exists only with compat on.
 */
import { HEADER_VERSION } from '../../../protocol/constants.js';
import type { CardForm } from './card-route.js';
import type { ResolvedHttpOptions } from '../http-options.js';

/** The v0.2/0.3 path of the agent card. */
export const LEGACY_AGENT_CARD_PATH = '/.well-known/agent.json';

/** Whether a version string names a version in [0.3, 1.0). */
export function isV03Version(v: string): boolean {
  const m = /^\s*0\.(\d+)(?:\.\d+)?\s*$/.exec(v);
  return m !== null && Number(m[1]) >= 3;
}

/** The card form a request for `path` gets, or undefined when the path serves no card. */
export function cardFormFor(
  req: Request,
  path: string,
  cardPath: string,
  options: ResolvedHttpOptions,
): CardForm | undefined {
  const compat = options.compat.includes('0.3');
  if (path === LEGACY_AGENT_CARD_PATH) return compat ? 'v0.3' : undefined;
  if (path !== cardPath) return undefined;
  if (!compat) return 'v1';
  const asked = req.headers.get(HEADER_VERSION);
  return asked === null || asked.trim() === '' || isV03Version(asked) ? 'v0.3' : 'v1';
}
