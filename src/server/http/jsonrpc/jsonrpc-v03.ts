/**
 * How the JSON-RPC binding tells a v0.3 request from a v1.0 one: by its method name, since many callers omit
 * `A2A-Version` (ADR 0097). A v0.3 name is served when the host turned compat on and refused with
 * VersionNotSupported naming the versions served when it did not; a v1.0 name is always v1.0.
 */
import { VersionNotSupportedError } from '../../../protocol/errors.js';
import { v03Method, type V03Method } from '../../compat/v03-methods.js';
import type { ResolvedHttpOptions } from '../http-options.js';
import { supportedVersions } from '../../binding/service-params.js';

/** The v0.3 method `name` names, undefined for any other name; throws when v0.3 is not served. */
export function legacyMethodOf(name: string, options: ResolvedHttpOptions): V03Method | undefined {
  const legacy = v03Method(name);
  if (legacy === undefined) return undefined;
  if (options.compat.includes('0.3')) return legacy;
  const list = supportedVersions(options).join(', ');
  throw new VersionNotSupportedError({
    message: `${name} is an A2A v0.3 method; this server speaks ${list} (v0.3 is not turned on)`,
    metadata: { requested: '0.3', supported: list, method: name },
  });
}
