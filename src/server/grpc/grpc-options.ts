/**
 * Options of the gRPC binding (docs/guides/grpc.md), with their documented defaults.
 */
import type { ServerCredentials } from '@grpc/grpc-js';

/** What `serveGrpc` can be told. */
export interface GrpcServeOptions {
  /** Interface to listen on (default `127.0.0.1`). */
  host?: string;
  /** Port (default 0: any free port; the handle says which). */
  port?: number;
  /** TLS or other credentials (default insecure: plaintext, for loopback or behind a TLS-terminating proxy). */
  credentials?: ServerCredentials;
  /** Largest request message accepted, in bytes; larger is refused RESOURCE_EXHAUSTED (default 4 MiB, as HTTP). */
  maxReceiveMessageBytes?: number;
  /** Largest answer message sent, in bytes (default 16 MiB: a task with its history can be large). */
  maxSendMessageBytes?: number;
  /** Interval of HTTP/2 keep-alive pings to an idle client, in ms (default 30 s). */
  keepAliveTimeMs?: number;
  /** How long a keep-alive ping may go unanswered before the connection is closed, in ms (default 10 s). */
  keepAliveTimeoutMs?: number;
  /**
   * The base URL an extended card's default HTTP interfaces name (default: the HTTP options' `publicBaseUrl`,
   * else `http://<host>`): a gRPC call carries no HTTP origin.
   */
  httpBaseUrl?: string;
}

/** GrpcServeOptions with defaults applied. */
export interface ResolvedGrpcOptions {
  readonly host: string;
  readonly port: number;
  readonly credentials: ServerCredentials | undefined;
  readonly maxReceiveMessageBytes: number;
  readonly maxSendMessageBytes: number;
  readonly keepAliveTimeMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly httpBaseUrl: string | undefined;
}

/** Defaults of the gRPC options. */
export const GRPC_DEFAULTS = {
  host: '127.0.0.1',
  maxReceiveMessageBytes: 4 * 1024 * 1024,
  maxSendMessageBytes: 16 * 1024 * 1024,
  keepAliveTimeMs: 30_000,
  keepAliveTimeoutMs: 10_000,
} as const;

function positive(name: string, v: number | undefined, fallback: number): number {
  if (v === undefined) return fallback;
  if (!Number.isInteger(v) || v <= 0) throw new RangeError(`grpc: ${name} must be a positive integer`);
  return v;
}

/** Applies defaults; throws RangeError for a value out of range. */
export function resolveGrpcOptions(o: GrpcServeOptions = {}): ResolvedGrpcOptions {
  const port = o.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new RangeError('grpc: port must be 0 to 65535');
  return {
    host: o.host ?? GRPC_DEFAULTS.host,
    port,
    credentials: o.credentials,
    maxReceiveMessageBytes: positive(
      'maxReceiveMessageBytes',
      o.maxReceiveMessageBytes,
      GRPC_DEFAULTS.maxReceiveMessageBytes,
    ),
    maxSendMessageBytes: positive(
      'maxSendMessageBytes',
      o.maxSendMessageBytes,
      GRPC_DEFAULTS.maxSendMessageBytes,
    ),
    keepAliveTimeMs: positive('keepAliveTimeMs', o.keepAliveTimeMs, GRPC_DEFAULTS.keepAliveTimeMs),
    keepAliveTimeoutMs: positive(
      'keepAliveTimeoutMs',
      o.keepAliveTimeoutMs,
      GRPC_DEFAULTS.keepAliveTimeoutMs,
    ),
    httpBaseUrl: o.httpBaseUrl,
  };
}
