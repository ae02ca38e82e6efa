/**
 * The events of a server-streaming gRPC call (SendStreamingMessage, SubscribeToTask), read with backpressure
 * (ADR 0113): at most `STREAM_BUFFER_EVENTS` (16) received and not yet taken by the consumer are held; at that
 * point the call is paused, so grpc-js stops reading and HTTP/2 flow control holds the server, and it resumes
 * once the consumer has taken them below the mark. A slow consumer therefore costs a bounded buffer, never one
 * that grows with what the agent produces. Events are decoded as they are taken.
 *
 * It plugs into the client's stream machinery as an SSE body does: the iteration yields StreamResponse JSON, ends
 * when the call ends with OK (the stream flow decides whether that was its proper end), and throws the call's
 * classified failure after the events that came before it. Returning early (the stream reached its end, the
 * caller stopped) cancels the call.
 */
import type { ClientReadableStream, Metadata, StatusObject } from '@grpc/grpc-js';
import type { AttemptSignal } from '../transport/transport.js';

/** Events held unconsumed before the call is paused. */
export const STREAM_BUFFER_EVENTS = 16;

/** What the reader needs besides the call. */
export interface StreamReaderOptions {
  readonly scope: AttemptSignal;
  /** One event's bytes as StreamResponse JSON; throws a classified error for bytes it cannot read. */
  readonly decode: (bytes: Buffer) => unknown;
  /** A failed status as the error it stands for (`answered`: the response headers had arrived). */
  readonly failure: (status: StatusObject, answered: boolean) => unknown;
  /** Told the response metadata once it arrives. */
  readonly onMetadata?: ((md: Metadata) => void) | undefined;
}

/** A stream call's events, bounded in memory. */
export class GrpcStreamReader implements AsyncIterable<unknown> {
  private readonly queue: Buffer[] = [];
  private ended = false;
  private failed: { error: unknown } | undefined;
  private paused = false;
  private answered = false;
  private wake: (() => void) | undefined;
  private readonly opening: Promise<void>;
  private readonly unlink: () => void;

  constructor(
    private readonly call: ClientReadableStream<Buffer>,
    private readonly options: StreamReaderOptions,
  ) {
    let open!: () => void;
    let refuse!: (err: unknown) => void;
    this.opening = new Promise<void>((resolve, reject) => {
      open = resolve;
      refuse = reject;
    });
    // An unawaited rejection must not surface: `opened` is awaited by the transport before anything else.
    this.opening.catch(() => undefined);
    call.on('metadata', (md: Metadata) => {
      this.answered = true;
      options.onMetadata?.(md);
      open();
    });
    call.on('data', (bytes: Buffer) => {
      this.queue.push(bytes);
      if (this.queue.length >= STREAM_BUFFER_EVENTS && !this.paused) {
        this.paused = true;
        call.pause();
      }
      open();
      this.notify();
    });
    call.on('error', (err: StatusObject) => {
      const mapped = options.failure(err, this.answered);
      const error = options.scope.signal.aborted ? options.scope.translate(mapped) : mapped;
      this.failed = { error };
      this.ended = true;
      this.unlink();
      refuse(error);
      this.notify();
    });
    call.on('end', () => {
      this.ended = true;
      this.unlink();
      open();
      this.notify();
    });
    const onAbort = (): void => call.cancel();
    options.scope.signal.addEventListener('abort', onAbort, { once: true });
    this.unlink = () => options.scope.signal.removeEventListener('abort', onAbort);
  }

  /** Events received and not yet taken (at most `STREAM_BUFFER_EVENTS` plus what grpc-js holds). */
  get buffered(): number {
    return this.queue.length;
  }

  /** Whether the call is paused for a consumer that has not kept up. */
  get isPaused(): boolean {
    return this.paused;
  }

  /** Resolves once the peer answered with a stream (headers, an event or its end); rejects with its refusal. */
  opened(): Promise<void> {
    return this.opening;
  }

  [Symbol.asyncIterator](): AsyncIterator<unknown> {
    return {
      next: () => this.next(),
      return: () => {
        this.stop();
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }

  private async next(): Promise<IteratorResult<unknown>> {
    for (;;) {
      const bytes = this.queue.shift();
      if (bytes !== undefined) {
        if (this.paused && this.queue.length < STREAM_BUFFER_EVENTS / 2) {
          this.paused = false;
          this.call.resume();
        }
        try {
          return { done: false, value: this.options.decode(bytes) };
        } catch (err) {
          this.stop();
          throw err;
        }
      }
      if (this.failed !== undefined) {
        this.unlink();
        throw this.failed.error;
      }
      if (this.ended) {
        this.unlink();
        return { done: true, value: undefined };
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** Stops reading: the call is cancelled unless it ended, and what it buffered is dropped. */
  private stop(): void {
    this.unlink();
    this.queue.length = 0;
    if (!this.ended) {
      this.ended = true;
      this.call.cancel();
    }
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
