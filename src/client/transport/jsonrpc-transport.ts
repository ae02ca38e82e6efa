/**
 * The JSON-RPC 2.0 binding (A2A v1.0): a POST of `{jsonrpc, id, method, params}` to the interface URL, the
 * tenant in `params.tenant` (A2A v1.0), and for streams an SSE body whose every `data:` is a whole JSON-RPC
 * response (A2A v1.0). Errors are rebuilt with `fromJsonRpcError` (by ErrorInfo reason first). Requests are
 * `application/json`, the one type §9 names in v1.0.0 and v1.0.1; an answer is read whichever JSON type it
 * declares (ADR 0042).
 */
import { fromJsonRpcError } from '../../protocol/error-wire.js';
import type { JsonRpcErrorObject } from '../../protocol/error-wire.js';
import { InvalidAgentResponseError, UnauthenticatedError } from '../../protocol/errors.js';
import type { JsonObject } from '../../protocol/model.js';
import { MEDIA_JSON, MEDIA_SSE } from '../../protocol/constants.js';
import { readBoundedText } from './bounded-body.js';
import { exchange, isEventStream, tryParseJson } from './http-exchange.js';
import { answeredWith, statusFailure } from './failure-kind.js';
import { retryAfterOf, secondsOf } from './retry-after.js';
import { isPlainRecord } from '../../protocol/schemas/lenient.js';
import { sseEvents } from './sse-body.js';
import { withEventSeq } from './transport.js';
import { parseEventSequence } from '../../protocol/event-sequence.js';
import type {
  AttemptContext,
  JsonRpcDialect,
  RawStream,
  StreamOperation,
  Transport,
  UnaryOperation,
} from './transport.js';
import { TransportError } from './transport-error.js';

function asRpcError(value: unknown): JsonRpcErrorObject | undefined {
  if (!isPlainRecord(value) || !isPlainRecord(value.error)) return undefined;
  const e = value.error;
  return {
    code: typeof e.code === 'number' ? e.code : -32603,
    message: typeof e.message === 'string' ? e.message : 'error',
    data: e.data,
  };
}

/** v1.0 itself: names and shapes as they are, the tenant in `params.tenant` (A2A v1.0). */
export const V1_DIALECT: JsonRpcDialect = {
  request: (op, params, tenant) => ({
    method: op,
    params: tenant === undefined ? params : { ...params, tenant },
  }),
  headers: (headers) => ({ ...headers }),
  result: (_op, raw) => raw,
  event: (raw) => raw,
};

/** A JSON-RPC transport for one interface. */
export class JsonRpcTransport implements Transport {
  /** Always `JSONRPC`. */
  readonly binding = 'JSONRPC';
  private nextId = 1;

  constructor(
    readonly url: string,
    readonly tenant: string | undefined,
    private readonly dialect: JsonRpcDialect = V1_DIALECT,
  ) {}

  /** One attempt of a unary method. */
  async call(op: UnaryOperation, params: JsonObject, ctx: AttemptContext): Promise<unknown> {
    const res = await this.post(op, params, ctx, MEDIA_JSON);
    return this.dialect.result(op, await this.readResult(res, ctx));
  }

  /** Opens `SendStreamingMessage` or `SubscribeToTask`. */
  async openStream(op: StreamOperation, params: JsonObject, ctx: AttemptContext): Promise<RawStream> {
    const res = await this.post(op, params, ctx, `${MEDIA_SSE}, ${MEDIA_JSON}`);
    // A call that fails before its first event gets a plain JSON error instead of a stream (A2A v1.0).
    if (!isEventStream(res) || res.body === null)
      return [this.dialect.event(await this.readResult(res, ctx))];
    return this.events(res, ctx);
  }

  private async post(op: string, params: JsonObject, ctx: AttemptContext, accept: string): Promise<Response> {
    const { method, params: wire } = this.dialect.request(op, params, this.tenant);
    const body = { jsonrpc: '2.0', id: this.nextId++, method, params: wire };
    return exchange(
      ctx.fetch,
      {
        url: this.url,
        method: 'POST',
        headers: { ...this.dialect.headers(ctx.headers), 'Content-Type': MEDIA_JSON, Accept: accept },
        body: JSON.stringify(body),
      },
      ctx.scope,
    );
  }

  private async readResult(res: Response, ctx: AttemptContext): Promise<unknown> {
    const text = await readBoundedText(res, ctx.scope, ctx.maxResponseBytes, statusFailure);
    const json = tryParseJson(text);
    const rpcError = asRpcError(json);
    const a2aError =
      rpcError === undefined ? undefined : fromJsonRpcError(rpcError, secondsOf(retryAfterOf(res)));
    const refused = statusFailure(res, a2aError);
    if (refused !== undefined) throw refused;
    if (a2aError !== undefined) throw answeredWith(a2aError, res.status);
    if (isPlainRecord(json) && 'result' in json) return json.result;
    if (res.status === 401) throw answeredWith(new UnauthenticatedError(), 401);
    if (res.status >= 500 || res.ok) {
      // The peer (or something in front of it) failed without a JSON-RPC answer, or answered 2xx with a body that
      // is not one: it may have run the call (ADR 0068).
      throw new TransportError(
        'ambiguous',
        res.ok ? 'BAD_BODY' : 'HTTP_ERROR',
        `no JSON-RPC answer (HTTP ${res.status})`,
        {
          httpStatus: res.status,
        },
      );
    }
    throw new InvalidAgentResponseError(`not a JSON-RPC response (HTTP ${res.status})`);
  }

  private async *events(res: Response, ctx: AttemptContext): AsyncGenerator<unknown> {
    for await (const ev of sseEvents(res.body!, ctx.scope, ctx.maxResponseBytes)) {
      const json = tryParseJson(ev.data);
      if (json === undefined) {
        throw new TransportError('ambiguous', 'STREAM_CUT', 'an unreadable stream event', {
          httpStatus: res.status,
        });
      }
      const rpcError = asRpcError(json);
      if (rpcError !== undefined) throw fromJsonRpcError(rpcError);
      if (!isPlainRecord(json) || !('result' in json)) {
        // Not a JSON-RPC response: unreadable like a broken event, not a refusal (ADR 0068).
        throw new TransportError('ambiguous', 'STREAM_CUT', 'a stream event without result', {
          httpStatus: res.status,
        });
      }
      yield withEventSeq(
        this.dialect.event(json.result),
        ev.id === undefined ? undefined : parseEventSequence(ev.id),
      );
    }
  }
}
