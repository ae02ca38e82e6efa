/**
 * The client's link to one agent: the usable interfaces in order (moving to the next when one cannot be
 * reached, and for a keyed send only within its tenant: `interface-route.ts`), the headers every request carries
 * (`A2A-Version`, `A2A-Extensions`, A2A v1.0–§7, and the credential of each attempt, ADR 0079), and one retried
 * attempt loop per call. An interface at version 0.x is spoken in v0.3 (`A2A-Version: 0.3`, ADR 0103). A binding
 * the core does not carry (GRPC) is built by the transport factory the client was given for it (ADR 0110).
 */
import { HEADER_EXTENSIONS, HEADER_VERSION, PROTOCOL_VERSION } from '../../protocol/constants.js';
import { LAST_EVENT_ID_HEADER } from '../../protocol/event-sequence.js';
import type { JsonObject } from '../../protocol/model.js';
import { resolveRetry, withRetry } from '../retry/retry-loop.js';
import type { ResolvedRetry, RetryLoopOptions, RetryState } from '../retry/retry-loop.js';
import type { CallSafety } from '../retry/retry-policy.js';
import { CallScope } from '../transport/call-scope.js';
import type { AttemptScope } from '../transport/call-scope.js';
import { JsonRpcTransport } from '../transport/jsonrpc-transport.js';
import { V03_DIALECT } from '../v03/v03-dialect.js';
import { isV03Version } from './interface-selection.js';
import { RestTransport } from '../transport/rest-transport.js';
import type {
  AttemptContext,
  FetchLike,
  RawStream,
  StreamOperation,
  Transport,
  TransportFactory,
  UnaryOperation,
} from '../transport/transport.js';
import { TransportError } from '../transport/transport-error.js';
import { ClientError } from './client-error.js';
import type { ClientCredentials } from '../credentials/client-credentials.js';
import { withCredentialHeaders } from '../credentials/client-credentials.js';
import { countOption } from './call-options.js';
import { CallSpans } from './call-span.js';
import type { Telemetry } from '../../telemetry/telemetry.js';
import { live } from '../../telemetry/telemetry.js';
import type { CallOptions, Endpoint } from './call-options.js';
import { InterfaceRoutes } from './interface-route.js';
import type { CallRoute, TenantPin } from './interface-route.js';

/** Settings of a connection. */
export interface ConnectionConfig {
  readonly endpoints: readonly Endpoint[];
  readonly fetch: FetchLike;
  readonly headers: Readonly<Record<string, string>>;
  readonly extensions: readonly string[];
  readonly retry: ResolvedRetry;
  readonly timeoutMs: number | undefined;
  readonly attemptTimeoutMs: number;
  /** The most one answer or SSE event may hold (ADR 0069). */
  readonly maxResponseBytes: number;
  /** Who the client is, placed as the card says (ADR 0079); none: only `headers`. */
  readonly credentials?: ClientCredentials | undefined;
  /** A CLIENT span per attempt, its trace context in the headers (ADR 0092); none: no span. */
  readonly telemetry?: Telemetry | undefined;
  /** Transports of bindings the core does not carry (ADR 0110), by binding; the first of a binding wins. */
  readonly transports?: readonly TransportFactory[] | undefined;
}

/** What a send adds to a call: the extensions it activates, the retry state it reads afterwards, its tenant. */
export interface CallExtras {
  readonly extensions?: readonly string[];
  readonly state?: RetryState;
  /** A keyed send's tenant: every attempt goes to an interface of it (ADR 0034). */
  readonly pin?: TenantPin | undefined;
  /** Told the headers of every answer an attempt gets (a send reads `A2A-Once-Admission` from them). */
  readonly onAnswerHeaders?: ((headers: Headers) => void) | undefined;
  /** The last event of a stream the caller has: sent as `Last-Event-ID` to resume after it (ADR 0125). */
  readonly lastEventSeq?: number | undefined;
}

/** An open stream and the attempt it belongs to (the caller disposes the attempt when done). */
export interface OpenedStream {
  readonly stream: RawStream;
  readonly scope: AttemptScope;
}

function transportFor(e: Endpoint, config: ConnectionConfig): Transport {
  const tenant = e.tenant === '' ? undefined : e.tenant;
  // A 0.x interface is v0.3 JSON-RPC, the only v0.3 binding interface selection keeps (ADR 0102, ADR 0103).
  if (isV03Version(e.protocolVersion)) return new JsonRpcTransport(e.url, undefined, V03_DIALECT);
  if (e.protocolBinding === 'HTTP+JSON') return new RestTransport(e.url, tenant);
  if (e.protocolBinding === 'JSONRPC') return new JsonRpcTransport(e.url, tenant);
  const factory = config.transports?.find((f) => f.binding === e.protocolBinding);
  // Interface selection keeps only bindings some transport speaks; an endpoint described by hand may name any.
  if (factory === undefined)
    throw new ClientError(
      'NO_USABLE_INTERFACE',
      `no transport speaks the ${e.protocolBinding} binding: pass one in the client's transports option`,
    );
  return factory.create({
    url: e.url,
    tenant,
    protocolVersion: majorMinor(e.protocolVersion),
    maxResponseBytes: config.maxResponseBytes,
  });
}

/** `Major.Minor` of a version string (A2A v1.0: patch numbers must not appear). */
function majorMinor(version: string): string {
  const m = /^(\d+)(?:\.(\d+))?/.exec(version.trim());
  return m === null ? PROTOCOL_VERSION : `${m[1]}.${m[2] ?? '0'}`;
}

/** A link to one agent. */
export class Connection {
  private readonly transports: Transport[];
  private readonly versions: string[];
  private readonly routes: InterfaceRoutes;
  /** The resolved retry settings (shared budget included). */
  readonly retry: ResolvedRetry;

  constructor(private readonly config: ConnectionConfig) {
    this.transports = config.endpoints.map((e) => transportFor(e, config));
    this.versions = config.endpoints.map((e) => majorMinor(e.protocolVersion));
    this.routes = new InterfaceRoutes(this.transports.map((t) => t.tenant));
    this.retry = config.retry;
  }

  /** The interface new calls start on. */
  get transport(): Transport {
    return this.transports[this.routes.current]!;
  }

  /** Whether some interface belongs to `tenant` (a recovered send can only go there). */
  serves(tenant: string | undefined): boolean {
    return this.routes.serves(tenant);
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
    extras: CallExtras = {},
  ): Promise<unknown> {
    const call = this.scope(opts);
    const route = this.routes.route(extras.pin);
    const telemetry = live(this.config.telemetry);
    const spans = telemetry && new CallSpans(telemetry, op, params);
    const attempt: Attempt<unknown> = (scope, credential) => {
      const i = route.next();
      const transport = this.transports[i]!;
      const ctx = this.context(i, scope, opts, extras, credential);
      if (spans === undefined) return transport.call(op, params, ctx);
      return spans.attempt(ctx, this.versions[i] ?? PROTOCOL_VERSION, (c) => transport.call(op, params, c));
    };
    const settings = this.retrySettings(opts, safety, call, route, extras, false);
    // Without telemetry, exactly the call it was: no span, no closure more.
    if (spans === undefined) return withRetry(attempt, settings);
    return spans.settle(spans.run(() => withRetry(attempt, settings)));
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
    extras: CallExtras = {},
  ): Promise<OpenedStream> {
    const route = this.routes.route(extras.pin);
    // A stream's span covers its opening: what follows is read by the caller, in its own time.
    const telemetry = live(this.config.telemetry);
    const spans = telemetry && new CallSpans(telemetry, op, params);
    const attempt: Attempt<OpenedStream> = async (scope, credential) => {
      const i = route.next();
      const transport = this.transports[i]!;
      const ctx = this.context(i, scope, opts, extras, credential);
      const stream =
        spans === undefined
          ? await transport.openStream(op, params, ctx)
          : await spans.attempt(ctx, this.versions[i] ?? PROTOCOL_VERSION, (c) =>
              transport.openStream(op, params, c),
            );
      scope.clearAttemptTimeout();
      return { stream, scope };
    };
    const settings = this.retrySettings(opts, safety, call, route, extras, true);
    if (spans === undefined) return withRetry(attempt, settings);
    return spans.settle(spans.run(() => withRetry(attempt, settings)));
  }

  /** The retry loop's settings for one call; `retainScope` for a stream, whose attempt outlives the opening. */
  private retrySettings(
    opts: CallOptions,
    safety: CallSafety,
    call: CallScope,
    route: CallRoute,
    extras: CallExtras,
    retainScope: boolean,
  ): RetryLoopOptions {
    return {
      retry: opts.retry === false ? resolveRetry(false) : this.retry,
      safety,
      call,
      attemptTimeoutMs: opts.attemptTimeoutMs ?? this.config.attemptTimeoutMs,
      onRetry: (err) => failover(err, route),
      ...(retainScope ? { retainScope: true } : {}),
      credentials: this.config.credentials?.forCall(),
      ...(extras.state ? { state: extras.state } : {}),
    };
  }

  private context(
    i: number,
    scope: AttemptScope,
    opts: CallOptions,
    extras: CallExtras,
    credential: Readonly<Record<string, string>>,
  ): AttemptContext {
    const extensions = [
      ...new Set([...this.config.extensions, ...(opts.extensions ?? []), ...(extras.extensions ?? [])]),
    ];
    // The credential wins over a fixed header of the same name: it is what a 401 refreshes.
    const headers = withCredentialHeaders({ ...this.config.headers, ...opts.headers }, credential);
    headers[HEADER_VERSION] = this.versions[i] ?? PROTOCOL_VERSION;
    if (extensions.length > 0) headers[HEADER_EXTENSIONS] = extensions.join(',');
    // gRPC sends it as `last-event-id` metadata (metadata keys are the header's, lower case).
    if (extras.lastEventSeq !== undefined) headers[LAST_EVENT_ID_HEADER] = String(extras.lastEventSeq);
    return {
      scope,
      headers,
      fetch: extras.onAnswerHeaders ? observed(this.config.fetch, extras.onAnswerHeaders) : this.config.fetch,
      onAnswerHeaders: extras.onAnswerHeaders,
      maxResponseBytes: countOption(
        'maxResponseBytes',
        opts.maxResponseBytes,
        this.config.maxResponseBytes,
        1,
      ),
    };
  }
}

/** `fetch`, telling `onHeaders` the headers of each answer it gets. */
function observed(fetchImpl: FetchLike, onHeaders: (headers: Headers) => void): FetchLike {
  return async (input, init) => {
    const res = await fetchImpl(input, init);
    onHeaders(res.headers);
    return res;
  };
}

/** One attempt of the retry loop. */
type Attempt<T> = (scope: AttemptScope, credential: Readonly<Record<string, string>>) => Promise<T>;

/** An interface that could not be reached at all: the call moves on (nothing was sent, so it is safe). */
function failover(err: unknown, route: CallRoute): void {
  if (err instanceof TransportError && err.kind === 'not-sent') route.notSent();
}
