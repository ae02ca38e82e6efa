/**
 * Which requests the v0.3 HTTP+JSON routes take (ADR 0100): with compat on, a path `/v1/{word}...` whose word is
 * a v0.3 route word (`message:send`, `message:stream`, `tasks`, `card`), asked without `A2A-Version` or with a
 * version in [0.3, 1.0). Such a path would otherwise read `v1` as a v1.0 tenant; a request that states
 * `A2A-Version: 1.x` still reaches the v1.0 route of tenant `v1`, and with compat off every path is read as
 * v1.0, unchanged.
 */
import { HEADER_VERSION } from '../../../protocol/constants.js';
import {
  isV03RestPath,
  matchV03Rest,
  type V03RestMatch,
  type V03RestMiss,
} from '../../compat/v03-rest-routes.js';
import { isV03Version } from '../card/card-version.js';
import type { ResolvedHttpOptions } from '../http-options.js';

/** The v0.3 route of a request, its miss, or undefined when the request is not for the v0.3 routes. */
export function v03RestRouteFor(
  req: Request,
  path: string,
  options: ResolvedHttpOptions,
): V03RestMatch | V03RestMiss | undefined {
  if (!options.compat.includes('0.3') || !path.startsWith('/v1/')) return undefined;
  const asked = req.headers.get(HEADER_VERSION);
  if (asked !== null && asked.trim() !== '' && !isV03Version(asked)) return undefined;
  let segs: string[];
  try {
    segs = path
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
  if (!isV03RestPath(segs)) return undefined;
  return matchV03Rest(req.method, segs.slice(1));
}
