/**
 * The client's headers as gRPC metadata (A2A §10): every header the connection builds for an attempt travels as
 * a lowercase ASCII metadata entry: `a2a-version`, `a2a-extensions` (one comma-separated entry), the credential
 * (`authorization`, or the card's API-key header), the trace context and the caller's own headers. Headers that
 * belong to HTTP itself or to gRPC's framing are not metadata and are left out. The answer's metadata is read
 * back as `Headers` (a send reads `a2a-once-admission` from it).
 */
import { Metadata } from '@grpc/grpc-js';

/** Names HTTP/2 and gRPC own: sending them as metadata would be refused or would break the call. */
const RESERVED = new Set([
  'accept',
  'accept-encoding',
  'connection',
  'content-length',
  'content-type',
  'host',
  'keep-alive',
  'te',
  'transfer-encoding',
  'upgrade',
  'user-agent',
]);

/** A metadata key grpc-js accepts: lowercase letters, digits, `-`, `_`, `.`. */
const KEY = /^[0-9a-z_.-]+$/;

/** The attempt's headers as the call's metadata. */
export function metadataOf(headers: Readonly<Record<string, string>>): Metadata {
  const md = new Metadata();
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    if (!KEY.test(key) || RESERVED.has(key) || key.startsWith('grpc-') || key.endsWith('-bin')) continue;
    md.add(key, value);
  }
  return md;
}

/** An answer's metadata (headers or trailers) as `Headers`; binary entries are left out. */
export function headersOf(md: Metadata): Headers {
  const headers = new Headers();
  for (const [key, values] of Object.entries(md.toJSON())) {
    if (key.endsWith('-bin')) continue;
    for (const v of values) {
      if (typeof v !== 'string') continue;
      try {
        headers.append(key, v);
      } catch {
        // A value no HTTP header could carry: it names no admission outcome either.
      }
    }
  }
  return headers;
}

/** The first string value of `key` in `md`, if any. */
export function metadataValue(md: Metadata | undefined, key: string): string | undefined {
  const v = md?.get(key)[0];
  return typeof v === 'string' ? v : undefined;
}
