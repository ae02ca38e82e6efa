/**
 * The gRPC binding of A2A v1.0 (A2A §10) for the client (ADR 0110): `lf.a2a.v1.A2AService` over one channel per
 * interface, the messages encoded with the shipped `.proto` (the codec the server uses, ADR 0105), the tenant in
 * each request's `tenant` field, the attempt's headers as metadata (`grpc-metadata.ts`), the client's deadline
 * as the call's gRPC deadline (a unary call's: the attempt's timeout too), and failures classified as the HTTP
 * bindings classify theirs (`grpc-failure.ts`, ADR 0112). A call is started only once the channel is ready, so a
 * channel that never connected sent nothing (`grpc-channel.ts`, ADR 0111). Streams are read with backpressure
 * (`stream-reader.ts`, ADR 0113).
 */
import type { StatusObject } from '@grpc/grpc-js';
import type { JsonObject, StreamResponse } from '../../protocol/model.js';
import { GRPC_METHODS, ProtoCodecError, decodeProto, encodeProto } from '../../protocol/grpc/index.js';
import { ClientError } from '../transport/client-error.js';
import type {
  AttemptContext,
  RawStream,
  StreamOperation,
  Transport,
  UnaryOperation,
} from '../transport/transport.js';
import { TransportError } from '../transport/transport-error.js';
import type { GrpcChannel } from './grpc-channel.js';
import { grpcFailure } from './grpc-failure.js';
import { headersOf, metadataOf } from './grpc-metadata.js';
import { GrpcStreamReader } from './stream-reader.js';
import { withEventSeq } from '../transport/transport.js';
import { EventSequencer, parseEventSequence, STREAM_SEQ_METADATA } from '../../protocol/event-sequence.js';

const passThrough = (b: Buffer): Buffer => b;

/** The earliest of some epoch-ms limits, or Infinity (grpc-js: no deadline). */
function earliest(...limits: (number | undefined)[]): number {
  return Math.min(...limits.map((l) => l ?? Infinity));
}

/** A gRPC transport for one interface. */
export class GrpcTransport implements Transport {
  /** Always `GRPC`. */
  readonly binding = 'GRPC';

  constructor(
    /** The interface URL as the card gives it. */
    readonly url: string,
    readonly tenant: string | undefined,
    private readonly channel: GrpcChannel,
  ) {}

  /** One attempt of a unary method. */
  async call(op: UnaryOperation, params: JsonObject, ctx: AttemptContext): Promise<unknown> {
    const shape = GRPC_METHODS[op];
    const request = this.encode(shape.requestType, params);
    await this.channel.ready(ctx.scope);
    const bytes = await new Promise<Buffer>((resolve, reject) => {
      let answered = false;
      const onAbort = (): void => call.cancel();
      const call = this.channel.client.makeUnaryRequest(
        shape.path,
        passThrough,
        passThrough,
        request,
        metadataOf(ctx.headers),
        { deadline: earliest(ctx.scope.timeoutAt, ctx.scope.deadlineAt) },
        (err, value) => {
          ctx.scope.signal.removeEventListener('abort', onAbort);
          // The classified failure: an A2AError, a TransportError, or the caller's own abort reason.
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
          if (err !== null) reject(this.failure(err, answered, ctx));
          else if (value === undefined) reject(unreadable('an empty answer'));
          else resolve(value);
        },
      );
      call.on('metadata', (md) => {
        answered = true;
        ctx.onAnswerHeaders?.(headersOf(md));
      });
      if (ctx.scope.signal.aborted) call.cancel();
      else ctx.scope.signal.addEventListener('abort', onAbort, { once: true });
    });
    return this.decode(shape.responseType, bytes, ctx);
  }

  /** Opens `SendStreamingMessage` or `SubscribeToTask`; resolves once the peer answered with a stream. */
  async openStream(op: StreamOperation, params: JsonObject, ctx: AttemptContext): Promise<RawStream> {
    const shape = GRPC_METHODS[op];
    const request = this.encode(shape.requestType, params);
    await this.channel.ready(ctx.scope);
    // The attempt timeout bounds the opening (the reader cancels on the attempt's signal); the stream itself
    // lives until the call's deadline, which is therefore its gRPC deadline.
    const call = this.channel.client.makeServerStreamRequest(
      shape.path,
      passThrough,
      passThrough,
      request,
      metadataOf(ctx.headers),
      { deadline: earliest(ctx.scope.deadlineAt) },
    );
    // A gRPC message has no room for its event's sequence: an a2a-once peer sends the stream's base once, in
    // the response metadata, and each event is numbered as it is taken, by counting from it (ADR 0125).
    let numbering: EventSequencer | undefined;
    const reader = new GrpcStreamReader(call, {
      scope: ctx.scope,
      decode: (bytes) => {
        const raw = this.decode(shape.responseType, bytes, ctx);
        return numbering ? withEventSeq(raw, numbering.next(raw as StreamResponse)) : raw;
      },
      failure: (status, answered) => this.failure(status, answered, ctx),
      onMetadata: (md) => {
        const base = md.get(STREAM_SEQ_METADATA)[0];
        const seq = typeof base === 'string' ? parseEventSequence(base) : undefined;
        if (seq !== undefined) numbering = new EventSequencer(seq);
        ctx.onAnswerHeaders?.(headersOf(md));
      },
    });
    await reader.opened();
    return reader;
  }

  /** The request message; a value the `.proto` cannot carry is the caller's bad input, refused unsent. */
  private encode(type: string, params: JsonObject): Buffer {
    try {
      return Buffer.from(
        encodeProto(type, this.tenant === undefined ? params : { ...params, tenant: this.tenant }),
      );
    } catch (err) {
      if (err instanceof ProtoCodecError)
        throw new ClientError('INVALID_ARGUMENT', `the request cannot be sent over gRPC: ${err.message}`, {
          cause: err,
        });
      throw err;
    }
  }

  /** An answer message as ProtoJSON, within the call's read limit. */
  private decode(type: string, bytes: Buffer, ctx: AttemptContext): unknown {
    if (bytes.length > ctx.maxResponseBytes)
      throw new TransportError(
        'ambiguous',
        'RESPONSE_TOO_LARGE',
        `an answer of ${bytes.length} bytes, larger than the limit of ${ctx.maxResponseBytes} bytes (maxResponseBytes)`,
        { limitBytes: ctx.maxResponseBytes },
      );
    try {
      return decodeProto(type, bytes);
    } catch (err) {
      if (err instanceof ProtoCodecError) throw unreadable(err.message, err);
      throw err;
    }
  }

  private failure(status: StatusObject, answered: boolean, ctx: AttemptContext): unknown {
    const err = grpcFailure(status, answered, ctx.maxResponseBytes);
    return ctx.scope.signal.aborted ? ctx.scope.translate(err) : err;
  }
}

/** An answer that arrived but cannot be read: it may have run (ADR 0068), as an unreadable HTTP body. */
function unreadable(why: string, cause?: unknown): TransportError {
  return new TransportError('ambiguous', 'BAD_BODY', `an unreadable gRPC answer (${why})`, {
    ...(cause !== undefined ? { cause } : {}),
  });
}
