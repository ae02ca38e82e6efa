/**
 * The client's link to one agent: the usable interfaces in order (moving to the next when one cannot be
 * reached), the headers every request carries (`A2A-Version`, `A2A-Extensions`, digest §6–§7), and one
 * retried attempt loop per call.
 */
import { HEADER_EXTENSIONS, HEADER_VERSION, PROTOCOL_VERSION } from '../protocol/constants.js';
import type { JsonObject } from '../protocol/model.js';
import { CallScope } from './call-scope.js';
import type { AttemptScope } from './call-scope.js';
import type { FetchLike } from './http-exchange.js';
import { JsonRpcTransport } from './jsonrpc-transport.js';
import type { CallOptions, Endpoint } from './options.js';
import { RestTransport } from './rest-transport.js';
import { resolveRetry, withRetry } from './retry-loop.js';
import type { ResolvedRetry, RetryState } from './retry-loop.js';
import type { CallSafety } from './retry-policy.js';
import type { RawStream, StreamOperation, Transport, UnaryOperation } from './transport.js';
import { TransportError } from './transport-error.js';

/** Settings of a connection. */
export interface ConnectionConfig {
  readonly endpoints: readonly Endpoint[];
  readonly fetch: FetchLike;
  readonly headers: Readonly<Record<string, string>>;
  readonly extensions: readonly string[];
  readonly retry: ResolvedRetry;
  readonly timeoutMs: number | undefined;
  readonly attemptTimeoutMs: number;
}

/** An open stream and the attempt it belongs to (the caller disposes the attempt when done). */
export interface OpenedStream {
  readonly stream: RawStream;
  readonly scope: AttemptScope;
}

function transportFor(e: Endpoint): Transport {
  const tenant = e.tenant === '' ? undefined : e.tenant;
  return e.protocolBinding === 'HTTP+JSON'
    ? new RestTransport(e.url, tenant)
    : new JsonRpcTransport(e.url, tenant);
}

/** `Major.Minor` of a version string (digest §7: patch numbers must not appear). */
function majorMinor(version: string): string {
  const m = /^(\d+)(?:\.(\d+))?/.exec(version.trim());
  return m === null ? PROTOCOL_VERSION : `${m[1]}.${m[2] ?? '0'}`;
}

/** A link to one agent. */
export class Connection {
  private readonly transports: Transport[];
  private readonly versions: string[];
  private active = 0;
  /** The resolved retry settings (shared budget included). */
  readonly retry: ResolvedRetry;

  constructor(private readonly config: ConnectionConfig) {
    this.transports = config.endpoints.map(transportFor);
    this.versions = config.endpoints.map((e) => majorMinor(e.protocolVersion));
    this.retry = config.retry;
  }

  /** The interface in use. */
  get transport(): Transport {
    return this.transports[this.active]!;
  }

  /** A call scope for the options of one call. */
  scope(opts: CallOptions): CallScope {
    return new CallScope({ signal: opts.signal, timeoutMs: opts.timeoutMs ?? this.config.timeoutMs });
  }

  /** Runs a unary operation with retries. */
  async unary(
    op: UnaryOperation,
    params: JsonObject,
    safety: CallSafety,
    opts: CallOptions,
    extraExtensions: readonly string[] = [],
    state?: RetryState,
  ): Promise<unknown> {
    const call = this.scope(opts);
    return withRetry((scope) => this.transport.call(op, params, this.context(scope, opts, extraExtensions)), {
      retry: opts.retry === false ? resolveRetry(false) : this.retry,
      safety,
      call,
      attemptTimeoutMs: opts.attemptTimeoutMs ?? this.config.attemptTimeoutMs,
      onRetry: (err) => this.failover(err),
      ...(state ? { state } : {}),
    });
  }

  /**
   * Opens a stream with retries (of the opening only: a stream cut later is the caller's to re-attach). The
   * attempt timeout covers the opening; after that only the call's deadline bounds the stream.
   */
  async open(
    op: StreamOperation,
    params: JsonObject,
    safety: CallSafety,
    opts: CallOptions,
    call: CallScope,
    extraExtensions: readonly string[] = [],
    state?: RetryState,
  ): Promise<OpenedStream> {
    return withRetry(
      async (scope) => {
        const stream = await this.transport.openStream(
          op,
          params,
          this.context(scope, opts, extraExtensions),
        );
        scope.clearAttemptTimeout();
        return { stream, scope };
      },
      {
        retry: opts.retry === false ? resolveRetry(false) : this.retry,
        safety,
        call,
        attemptTimeoutMs: opts.attemptTimeoutMs ?? this.config.attemptTimeoutMs,
        onRetry: (err) => this.failover(err),
        retainScope: true,
        ...(state ? { state } : {}),
      },
    );
  }

  private context(scope: AttemptScope, opts: CallOptions, extraExtensions: readonly string[]) {
    const extensions = [
      ...new Set([...this.config.extensions, ...(opts.extensions ?? []), ...extraExtensions]),
    ];
    const headers: Record<string, string> = {
      ...this.config.headers,
      ...opts.headers,
      [HEADER_VERSION]: this.versions[this.active] ?? PROTOCOL_VERSION,
    };
    if (extensions.length > 0) headers[HEADER_EXTENSIONS] = extensions.join(',');
    return { scope, headers, fetch: this.config.fetch };
  }

  /** An interface that could not be reached at all: move to the next one (nothing was sent, so it is safe). */
  private failover(err: unknown): void {
    if (err instanceof TransportError && err.kind === 'not-sent' && this.transports.length > 1) {
      this.active = (this.active + 1) % this.transports.length;
    }
  }
}
