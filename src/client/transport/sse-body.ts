/**
 * Reads an SSE response body into events: bytes decoded as UTF-8 across chunk boundaries, framed by
 * `SseParser`. A read failure mid-stream is an ambiguous "stream cut" (docs/semantics.md §7); a clean end of the body
 * is returned as the end of iteration, and the caller decides whether the stream had reached its proper end.
 * One event is bounded (`maxEventSize`, the client's `maxResponseBytes`, ADR 0069): a line or an event that grows
 * past it ends the stream with `SseEventTooLargeError` and cancels the body, instead of buffering without end.
 */
import type { AttemptSignal } from './transport.js';
import { SseParser } from './sse-parser.js';
import type { SseEvent } from './sse-parser.js';
import { readChunk } from './read-chunk.js';
import { TransportError } from './transport-error.js';

/** Yields the events of an SSE body until it ends. */
export async function* sseEvents(
  body: ReadableStream<Uint8Array>,
  scope: AttemptSignal,
  maxEventSize: number,
): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder('utf-8');
  const parser = new SseParser({ maxEventSize });
  try {
    for (;;) {
      const chunk = await readChunk(
        reader,
        scope,
        (err) =>
          new TransportError('ambiguous', 'STREAM_CUT', 'the stream was cut before its end', { cause: err }),
      );
      if (chunk.done) {
        for (const ev of parser.push(decoder.decode())) yield ev;
        parser.end();
        return;
      }
      for (const ev of parser.push(decoder.decode(chunk.value, { stream: true }))) yield ev;
    }
  } finally {
    // Stop the download when the consumer stops early (a stream that ended properly, or an abort).
    reader.cancel().catch(() => undefined);
  }
}
