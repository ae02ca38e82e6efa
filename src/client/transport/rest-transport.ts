/**
 * The HTTP+JSON binding (A2A v1.0): routes from `rest-routes.ts`, `application/a2a+json` bodies (what a v1.0.1
 * server expects), answers of either JSON type (v1.0.0 servers send `application/json`, ADR 0042), any 2xx as
 * success (201 and 204 included, A2A v1.0), `google.rpc.Status` error bodies rebuilt with `fromRestError`
 * (by ErrorInfo reason first), and for streams an SSE body of bare StreamResponse objects, where a `data:` with
 * an `error` member is an error (A2A v1.0).
 */
import { ACCEPT_A2A_OR_JSON, MEDIA_A2A_JSON, MEDIA_SSE } from '../../protocol/constants.js';
import { fromRestError } from '../../protocol/error-wire.js';
import type { JsonObject } from '../../protocol/model.js';
import { readBoundedText } from './bounded-body.js';
import { exchange, isEventStream, tryParseJson } from './http-exchange.js';
import { answeredWith, statusFailure } from './failure-kind.js';
import { retryAfterOf, secondsOf } from './retry-after.js';
import { restRoute } from './rest-routes.js';
import { isPlainRecord } from '../../protocol/schemas/lenient.js';
import { sseEvents } from './sse-body.js';
import { parseEventSequence } from '../../protocol/event-sequence.js';
import {
  withEventSeq,
  type AttemptContext,
  type RawStream,
  type StreamOperation,
  type Transport,
  type UnaryOperation,
} from './transport.js';
import { TransportError } from './transport-error.js';

/** Whether a body is a `google.rpc.Status` error with A2A details (a definite answer even on a 5xx). */
function hasErrorInfo(body: unknown): boolean {
  return isPlainRecord(body) && isPlainRecord(body.error) && Array.isArray(body.error.details);
}

/** What a stream request accepts: the stream, or a JSON error of either type. */
const STREAM_ACCEPT = `${MEDIA_SSE}, ${ACCEPT_A2A_OR_JSON}`;

/** An HTTP+JSON transport for one interface. */
export class RestTransport implements Transport {
  /** Always `HTTP+JSON`. */
  readonly binding = 'HTTP+JSON';
  private readonly base: string;

  constructor(
    readonly url: string,
    readonly tenant: string | undefined,
  ) {
    this.base = url.replace(/\/+$/, '');
  }

  /** One attempt of a unary operation. */
  async call(op: UnaryOperation, params: JsonObject, ctx: AttemptContext): Promise<unknown> {
    const res = await this.send(op, params, ctx, ACCEPT_A2A_OR_JSON);
    return this.readResult(res, ctx);
  }

  /** Opens `message:stream` or `tasks/{id}:subscribe`. */
  async openStream(op: StreamOperation, params: JsonObject, ctx: AttemptContext): Promise<RawStream> {
    // A stream refused before its first event is answered as JSON, of either type.
    const res = await this.send(op, params, ctx, STREAM_ACCEPT);
    if (!isEventStream(res) || res.body === null) return [await this.readResult(res, ctx)];
    if (!res.ok) return [await this.readResult(res, ctx)];
    return this.events(res, ctx);
  }

  private send(
    op: UnaryOperation | StreamOperation,
    params: JsonObject,
    ctx: AttemptContext,
    accept: string,
  ) {
    const route = restRoute(op, params, this.tenant);
    const headers: Record<string, string> = { ...ctx.headers, Accept: accept };
    if (route.body !== undefined) headers['Content-Type'] = MEDIA_A2A_JSON;
    return exchange(
      ctx.fetch,
      {
        url: this.base + route.path,
        method: route.method,
        headers,
        ...(route.body !== undefined ? { body: JSON.stringify(route.body) } : {}),
      },
      ctx.scope,
    );
  }

  private async readResult(res: Response, ctx: AttemptContext): Promise<unknown> {
    const text = await readBoundedText(res, ctx.scope, ctx.maxResponseBytes, statusFailure);
    const json = tryParseJson(text);
    if (res.ok) {
      if (text.trim() === '') return {}; // 204 from delete: `google.protobuf.Empty`
      if (json === undefined) {
        throw new TransportError(
          'ambiguous',
          'BAD_BODY',
          `an unreadable response body (HTTP ${res.status})`,
          {
            httpStatus: res.status,
          },
        );
      }
      return json;
    }
    const retryAfterMs = retryAfterOf(res);
    const a2aError =
      json === undefined ? undefined : fromRestError(res.status, json, secondsOf(retryAfterMs));
    const refused = statusFailure(res, a2aError);
    if (refused !== undefined) throw refused;
    if (res.status >= 500 && !hasErrorInfo(json)) {
      throw new TransportError('ambiguous', 'HTTP_ERROR', `HTTP ${res.status} without an A2A error`, {
        httpStatus: res.status,
      });
    }
    throw answeredWith(a2aError ?? fromRestError(res.status, undefined), res.status);
  }

  private async *events(res: Response, ctx: AttemptContext): AsyncGenerator<unknown> {
    for await (const ev of sseEvents(res.body!, ctx.scope, ctx.maxResponseBytes)) {
      const json = tryParseJson(ev.data);
      if (json === undefined) {
        throw new TransportError('ambiguous', 'STREAM_CUT', 'an unreadable stream event', {
          httpStatus: res.status,
        });
      }
      if (isPlainRecord(json) && isPlainRecord(json.error)) {
        const code = typeof json.error.code === 'number' ? json.error.code : 500;
        throw fromRestError(code, json);
      }
      yield withEventSeq(json, ev.id === undefined ? undefined : parseEventSequence(ev.id));
    }
  }
}
