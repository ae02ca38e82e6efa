/**
 * Server-sent events framing (digest §1.5): one `data: <single-line JSON>` per event followed by a blank line;
 * a mid-stream failure as `event: error`. The stream pulls from the handler's iterable, so a slow client
 * applies back-pressure, and a client that goes away cancels the iteration.
 */
import { MEDIA_SSE } from '../../protocol/constants.js';
import type { StreamResponse } from '../../protocol/model.js';

const encoder = new TextEncoder();

/** Standard SSE response headers (as `@a2a-js/sdk`). */
export function sseHeaders(extra: Record<string, string>): Record<string, string> {
  return {
    'Content-Type': MEDIA_SSE,
    'Cache-Control': 'no-cache',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
    ...extra,
  };
}

/**
 * A streaming body over `events`.
 * @param frame renders one event as the JSON of its `data:` line
 * @param frameError renders a mid-stream failure as the JSON of an `event: error` data line
 * @param onClose called once when the stream ends for any reason (client gone, end, error)
 */
export function sseBody(
  events: AsyncIterable<StreamResponse>,
  frame: (event: StreamResponse) => string,
  frameError: (err: unknown) => string,
  keepAliveMs: number,
  onClose: () => void,
): ReadableStream<Uint8Array> {
  const it = events[Symbol.asyncIterator]();
  let timer: ReturnType<typeof setInterval> | undefined;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    if (timer) clearInterval(timer);
    onClose();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (keepAliveMs > 0) {
        timer = setInterval(() => {
          try {
            controller.enqueue(encoder.encode(': keep-alive\n\n'));
          } catch {
            close();
          }
        }, keepAliveMs);
        timer.unref?.();
      }
    },
    async pull(controller) {
      try {
        const next = await it.next();
        if (next.done) {
          close();
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(`data: ${frame(next.value)}\n\n`));
      } catch (err) {
        controller.enqueue(encoder.encode(`event: error\ndata: ${frameError(err)}\n\n`));
        close();
        controller.close();
      }
    },
    async cancel() {
      close();
      await it.return?.();
    },
  });
}
