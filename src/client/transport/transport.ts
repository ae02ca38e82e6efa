/**
 * What a binding (JSON-RPC, HTTP+JSON) does for the client: one attempt of an operation, returning the raw
 * result JSON or the raw StreamResponse JSON objects of a stream. Retries, keys and parsing live above it, so
 * both bindings behave the same (A2A §5.1: every binding has the same semantics).
 *
 * Errors: an `A2AError` is a definite answer from the peer; a `TransportError` is a classified failure
 * (docs/semantics.md §7); the caller's abort reason is thrown as is.
 */
import type { A2AMethod } from '../../protocol/constants.js';
import type { JsonObject } from '../../protocol/model.js';

/** The subset of the global `fetch` the client uses (injectable, e.g. for a custom dispatcher). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/**
 * What a binding needs of an attempt's limits (`AttemptScope` in `call-scope.ts` is the one the client uses): the
 * signal to hand to `fetch` and to body reads, and the failure an aborted read stands for (caller abort as is,
 * our own deadline or timeout as an ambiguous `TransportError`). Deadlines and timers stay out of the bindings.
 */
export interface AttemptSignal {
  readonly signal: AbortSignal;
  translate(err: unknown): unknown;
  /**
   * Epoch ms of the call's deadline, when it has one: a binding with deadlines of its own (gRPC) sends it with
   * the request, so the peer stops waiting when the caller does.
   */
  readonly deadlineAt?: number | undefined;
  /** Epoch ms at which this attempt times out, when it has an attempt timeout (a unary call's gRPC deadline). */
  readonly timeoutAt?: number | undefined;
}

/** The operations answered by one response. */
export type UnaryOperation = Exclude<A2AMethod, 'SendStreamingMessage' | 'SubscribeToTask'>;

/** The operations answered by an SSE stream. */
export type StreamOperation = 'SendStreamingMessage' | 'SubscribeToTask';

/** What every attempt carries. */
export interface AttemptContext {
  readonly scope: AttemptSignal;
  /** Service parameters (`A2A-Version`, `A2A-Extensions`) and the caller's own headers. */
  readonly headers: Readonly<Record<string, string>>;
  readonly fetch: FetchLike;
  /** The most an answer's body, or one SSE event, may hold (bytes; an event's characters), ADR 0069. */
  readonly maxResponseBytes: number;
  /**
   * Told the headers of an answer by a binding that does not answer through `fetch` (gRPC: its response
   * metadata), so a send reads `A2A-Once-Admission` whatever the binding. HTTP bindings leave it to `fetch`.
   */
  readonly onAnswerHeaders?: ((headers: Headers) => void) | undefined;
}

/** An open stream: raw StreamResponse objects, until the body ends. */
export type RawStream = AsyncIterable<unknown> | Iterable<unknown>;

/** One binding to one interface. */
export interface Transport {
  /** `JSONRPC`, `HTTP+JSON`, or the binding of a transport factory (`GRPC`). */
  readonly binding: string;
  /** The interface URL. */
  readonly url: string;
  /** The interface's tenant, echoed in every request (A2A v1.0). */
  readonly tenant: string | undefined;
  /** One attempt of a unary operation; resolves with the raw `result`. `params` never carries `tenant`. */
  call(op: UnaryOperation, params: JsonObject, ctx: AttemptContext): Promise<unknown>;
  /** Opens a stream; resolves once the peer answered with a stream (or throws its error). */
  openStream(op: StreamOperation, params: JsonObject, ctx: AttemptContext): Promise<RawStream>;
}

/**
 * How one protocol version names and shapes JSON-RPC calls (ADR 0103): the method and params of an operation, the
 * headers it adds, and how its results and stream events read as v1.0 JSON. Everything else (the exchange, the
 * failure classification, the error mapping) is the one JSON-RPC transport's, whatever the version.
 */
export interface JsonRpcDialect {
  /** The method name and params of `op`; throws (before anything is sent) for an operation it has no name for. */
  request(op: string, params: JsonObject, tenant: string | undefined): { method: string; params: unknown };
  /** The headers to send, from the connection's. */
  headers(headers: Readonly<Record<string, string>>): Record<string, string>;
  /** A unary result as the v1.0 result JSON of `op`. */
  result(op: string, raw: unknown): unknown;
  /** A stream event as v1.0 `StreamResponse` JSON. */
  event(raw: unknown): unknown;
}

/** The interface a transport factory builds a transport for (one entry of the card's `supportedInterfaces`). */
export interface TransportTarget {
  /** The interface URL as the card gives it (for gRPC `host:port`, or with a scheme: ADR 0111). */
  readonly url: string;
  /** The interface's tenant, or undefined for none. */
  readonly tenant: string | undefined;
  /** The interface's protocol version (`Major.Minor`). */
  readonly protocolVersion: string;
  /** The client's `maxResponseBytes`: the most one answer may hold (ADR 0069). */
  readonly maxResponseBytes: number;
}

/**
 * A binding the core client does not carry itself (ADR 0110): its name as cards list it, and how to build a
 * transport for one interface. Passed in the client's `transports` option; `grpcTransport()` from
 * `a2a-once/client/grpc` is one. An interface of a binding no factory and no built-in transport speaks is not used.
 */
export interface TransportFactory {
  /** The `protocolBinding` it speaks (`GRPC`). */
  readonly binding: string;
  /**
   * Builds the transport of one interface; throws a `ClientError` `INVALID_ARGUMENT` for a URL it cannot use.
   * Called once per interface, when the client is built.
   */
  create(target: TransportTarget): Transport;
}

/**
 * The task event sequence of each raw stream event, as its transport read it (ADR 0124): an SSE event's `id:`,
 * or on gRPC the stream's base sequence plus the count of events (ADR 0125). Kept beside the event rather than
 * in it, so the event stays exactly what the peer sent; a peer that numbers nothing leaves every event without.
 */
const EVENT_SEQS = new WeakMap<object, number>();

/** Notes `seq` as the sequence of `raw` (a fresh object per event) and returns `raw`. */
export function withEventSeq<T>(raw: T, seq: number | undefined): T {
  if (seq !== undefined && typeof raw === 'object' && raw !== null) EVENT_SEQS.set(raw, seq);
  return raw;
}

/** The sequence noted for a raw stream event, if its peer numbered it. */
export function eventSeqOf(raw: unknown): number | undefined {
  return typeof raw === 'object' && raw !== null ? EVENT_SEQS.get(raw) : undefined;
}
