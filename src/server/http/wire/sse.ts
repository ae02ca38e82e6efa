/**
 * Server-sent events framing (A2A v1.0): one `data: <single-line JSON>` per event followed by a blank line,
 * after an `id:` line with the event's task sequence when the stream has a base sequence (ADR 0124: A2A defines
 * no ids, and a client that ignores them loses nothing); a mid-stream refusal as `event: error`. An unexpected error mid-stream is not framed: the stream follows work
 * that was admitted and may still be running, and an INTERNAL error frame would tell the caller it failed. The
 * stream is cut instead (ambiguous: the client re-attaches) and the error is logged (ADR 0029).
 * The stream pulls from the handler's iterable, so a slow client applies back-pressure, and a client that goes
 * away cancels the iteration.
 */
import { MEDIA_SSE } from '../../../protocol/constants.js';
import { EventSequencer } from '../../../protocol/event-sequence.js';
import type { StreamResponse } from '../../../protocol/model.js';
import { isInternal } from '../../observability/error-log.js';

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
 * @param frameError renders a mid-stream refusal (an A2AError other than INTERNAL_ERROR) as the JSON of an
 *   `event: error` data line
 * @param keepAliveMs interval of keep-alive comments (0: none)
 * @param onClose called once when the stream ends for any reason (client gone, end, error)
 * @param onCut called with an unexpected error that cut the stream, and the task id of the last event sent
 * @param baseSeq the stream's base sequence (`CallNotes.streamSeq`): each event's `id:` is numbered from it;
 *   none: no `id:` lines (a handler that does not number its streams)
 */
export function sseBody(
  events: AsyncIterable<StreamResponse>,
  frame: (event: StreamResponse) => string,
  frameError: (err: unknown) => string,
  keepAliveMs: number,
  onClose: () => void,
  onCut: (err: unknown, taskId: string | undefined) => void,
  baseSeq?: number,
): ReadableStream<Uint8Array> {
  const it = events[Symbol.asyncIterator]();
  const ids = baseSeq === undefined ? undefined : new EventSequencer(baseSeq);
  // The last event handed out: on a cut, it names the task (read only then).
  let last: StreamResponse | undefined;
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
        // The client went away while we waited (`cancel` ran): nothing to write, and nothing went wrong.
        if (closed) return;
        if (next.done) {
          close();
          controller.close();
          return;
        }
        last = next.value;
        const data = `data: ${frame(next.value)}\n\n`;
        controller.enqueue(encoder.encode(ids ? `id: ${ids.next(next.value)}\n${data}` : data));
      } catch (err) {
        if (closed) return;
        if (isInternal(err)) onCut(err, last && taskIdOf(last));
        else controller.enqueue(encoder.encode(`event: error\ndata: ${frameError(err)}\n\n`));
        close();
        controller.close();
        // The iteration may still be parked on the store: end it.
        void it.return?.()?.catch(() => undefined);
      }
    },
    async cancel() {
      close();
      await it.return?.();
    },
  });
}

/** The task an event is about. */
function taskIdOf(ev: StreamResponse): string | undefined {
  if ('task' in ev) return ev.task.id;
  if ('statusUpdate' in ev) return ev.statusUpdate.taskId;
  if ('artifactUpdate' in ev) return ev.artifactUpdate.taskId;
  return ev.message.taskId;
}
