/**
 * gRPC metadata as the HTTP bindings' headers (A2A §10): `a2a-version`, `a2a-extensions` (one
 * comma-separated entry, or several entries), `authorization` and the trace context travel as ASCII metadata,
 * so a call is admitted through the very checks an HTTP request is (version, extensions, the Authenticator),
 * which read a web `Request`. Binary (`-bin`) entries are not headers and are left out.
 */
import { Metadata } from '@grpc/grpc-js';
import { STREAM_SEQ_METADATA } from '../../protocol/event-sequence.js';
import { HEADER_ADMISSION, HEADER_EXTENSIONS } from '../../protocol/constants.js';
import type { CallContext } from '../call-context.js';

/** The origin of the `Request` view of a gRPC call (never fetched; authenticators read only its headers). */
const CALL_ORIGIN = 'http://grpc.a2a-once.invalid';

/** The metadata of a call as `Headers`. */
export function headersOf(metadata: Metadata): Headers {
  const headers = new Headers();
  for (const key of Object.keys(metadata.getMap())) {
    if (key.endsWith('-bin')) continue;
    for (const v of metadata.get(key)) {
      if (typeof v !== 'string') continue;
      try {
        headers.append(key, v);
      } catch {
        // A value no HTTP header could carry: it cannot name a version, an extension or a credential either.
      }
    }
  }
  return headers;
}

/**
 * The `Request` an Authenticator reads: the call's path, its metadata as headers. Built only when the server
 * authenticates (a `Request` costs more than the rest of the call's admission); the version and extension checks
 * read the headers alone.
 */
export function requestViewOf(path: string, headers: Headers): Request {
  return new Request(callUrlOf(path), { method: 'POST', headers });
}

const callUrls = new Map<string, URL>();
/** The URL of a call to `path` (one per method, never fetched), as the shared checks take it. */
export function callUrlOf(path: string): URL {
  let url = callUrls.get(path);
  if (url === undefined) {
    url = new URL(`${CALL_ORIGIN}${path}`);
    callUrls.set(path, url);
  }
  return url;
}

/**
 * The answer's metadata: the `a2a-extensions` echo of what the server activated, and `a2a-once-admission`
 * (how a send was admitted), as the HTTP bindings send them as headers.
 */
export function answerMetadata(ctx: CallContext | undefined): Metadata {
  const md = new Metadata();
  if (ctx === undefined) return md;
  if (ctx.activatedExtensions.size > 0)
    md.set(HEADER_EXTENSIONS.toLowerCase(), [...ctx.activatedExtensions].join(', '));
  if (ctx.notes?.admission !== undefined) md.set(HEADER_ADMISSION.toLowerCase(), ctx.notes.admission);
  // A gRPC message has no room for its event's sequence: the base goes once, and the client counts (ADR 0125).
  if (ctx.notes?.streamSeq !== undefined) md.set(STREAM_SEQ_METADATA, String(ctx.notes.streamSeq));
  return md;
}
