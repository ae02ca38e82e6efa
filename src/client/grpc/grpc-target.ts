/**
 * Where a card's GRPC interface points, and whether its channel uses TLS (ADR 0111). The proto's comment says a
 * gRPC `AgentInterface.url` is `host:port` (what a2a-once's server lists); cards in the wild also carry a scheme.
 * - `host:port` (or `[v6]:port`): TLS, unless the transport was told `insecure: true`;
 * - `https://host:port`, `grpcs://host:port`: TLS, always;
 * - `http://host:port`, `grpc://host:port`: plaintext, always (the card says so).
 * A path, a query or user info cannot name a gRPC channel: the URL is refused, before anything is sent. Without a
 * port, a scheme's default is used (443 for TLS, 80 for plaintext), as gRPC's own name resolution does.
 */
import { ClientError } from '../transport/client-error.js';

/** A channel's address and security. */
export interface GrpcTarget {
  /** `host:port`, as grpc-js takes it (an IPv6 host in brackets). */
  readonly address: string;
  /** Whether the channel uses TLS. */
  readonly tls: boolean;
}

const SECURE_SCHEMES = new Set(['https:', 'grpcs:']);
const PLAIN_SCHEMES = new Set(['http:', 'grpc:']);

/** The URL as an error may show it: without user info, which may hold a password. */
function shown(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)?[^/@]*@/i, '$1');
}

function refuse(url: string, why: string): ClientError {
  return new ClientError(
    'INVALID_ARGUMENT',
    `not a gRPC interface URL: ${JSON.stringify(shown(url))} ${why}`,
  );
}

/** Reads a card's gRPC URL; `insecure` is the transport's option for a bare `host:port`. */
export function grpcTargetOf(url: string, insecure: boolean): GrpcTarget {
  const trimmed = url.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(trimmed)?.[1]?.toLowerCase();
  const withScheme = scheme === undefined ? `grpc-bare://${trimmed}` : trimmed;
  let parsed: URL;
  try {
    parsed = new URL(withScheme);
  } catch {
    throw refuse(url, 'is neither host:port nor a URL');
  }
  if (scheme !== undefined && !SECURE_SCHEMES.has(`${scheme}:`) && !PLAIN_SCHEMES.has(`${scheme}:`))
    throw refuse(url, `uses ${scheme}, not http, https, grpc or grpcs`);
  if (parsed.username !== '' || parsed.password !== '') throw refuse(url, 'carries user info');
  if ((parsed.pathname !== '' && parsed.pathname !== '/') || parsed.search !== '' || parsed.hash !== '')
    throw refuse(url, 'has a path or a query, which a gRPC channel cannot use');
  if (parsed.hostname === '') throw refuse(url, 'names no host');
  const tls = scheme === undefined ? !insecure : SECURE_SCHEMES.has(`${scheme}:`);
  if (scheme === undefined && parsed.port === '') throw refuse(url, 'has no port (host:port)');
  const port = parsed.port !== '' ? parsed.port : tls ? '443' : '80';
  return { address: `${parsed.hostname}:${port}`, tls };
}
