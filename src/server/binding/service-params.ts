/**
 * Service parameters (A2A §3.2.6, §3.6): `A2A-Version` and `A2A-Extensions`, from headers (or the version from
 * the query string, §3.6.1).
 */
import {
  HEADER_ADMISSION,
  HEADER_EXTENSIONS,
  HEADER_VERSION,
  PROTOCOL_VERSION,
} from '../../protocol/constants.js';
import type { CallContext } from '../call-context.js';
import { VersionNotSupportedError } from '../../protocol/errors.js';

/**
 * Checks the requested version. 1.0 is served; a missing or empty header is served as 1.0 (a v1.0-only server
 * has nothing else to offer, and peers that omit it are common); a patch number is ignored (§3.6: "MUST NOT
 * influence negotiation"); anything else is refused with VersionNotSupported.
 */
export function checkVersion(
  headers: Headers,
  url: URL | undefined,
  /** The version the request's shape is in: a v0.3 method name is read as 0.3 (ADR 0097). */
  wireVersion: string = PROTOCOL_VERSION,
  /** Every version the server speaks, named in the refusal. */
  supported: readonly string[] = [PROTOCOL_VERSION],
): void {
  const raw = headers.get(HEADER_VERSION) ?? url?.searchParams.get(HEADER_VERSION) ?? '';
  const v = raw.trim();
  if (v === '') return;
  const m = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(v);
  if (m && `${m[1]}.${m[2]}` === wireVersion) return;
  const list = supported.join(', ');
  throw new VersionNotSupportedError({
    message:
      m && supported.includes(`${m[1]}.${m[2]}`)
        ? `A2A-Version ${v} does not match the request, which is in the shape of ${wireVersion}`
        : `A2A-Version ${v} is not supported; this server speaks ${list}`,
    metadata: { requested: v, supported: list },
  });
}

/** The versions a server with these options speaks, newest first. */
export function supportedVersions(options: { readonly compat: readonly string[] }): readonly string[] {
  return options.compat.length === 0 ? ONLY_V1 : [PROTOCOL_VERSION, ...options.compat];
}
const ONLY_V1: readonly string[] = [PROTOCOL_VERSION];

/** The extension URIs the client requested: comma-separated, trimmed, de-duplicated. */
export function requestedExtensions(headers: Headers): string[] {
  const raw = headers.get(HEADER_EXTENSIONS);
  if (!raw) return [];
  const out: string[] = [];
  for (const part of raw.split(',')) {
    const uri = part.trim();
    if (uri !== '' && !out.includes(uri)) out.push(uri);
  }
  return out;
}

/** Adds the `A2A-Extensions` echo of what the server activated (only when something was). */
export function echoExtensions(
  headers: Record<string, string>,
  activated: ReadonlySet<string>,
): Record<string, string> {
  if (activated.size === 1) {
    // The usual case (the idempotency extension alone): no array and no join on every keyed send.
    for (const uri of activated) headers[HEADER_EXTENSIONS] = uri;
  } else if (activated.size > 1) headers[HEADER_EXTENSIONS] = [...activated].join(', ');
  return headers;
}

/** The headers of a call's answer: the extensions echo, and how a send was admitted (`A2A-Once-Admission`). */
export function answerHeaders(ctx: CallContext): Record<string, string> {
  const headers = echoExtensions({}, ctx.activatedExtensions);
  if (ctx.notes?.admission !== undefined) headers[HEADER_ADMISSION] = ctx.notes.admission;
  return headers;
}
