/**
 * Stream resumption by event sequence, a2a-once's answer to what A2A v1.0 leaves open (streams carry no event
 * ids, §3.5.2, §3.7): every event of a task's log has a sequence, so a stream can say which event each of its
 * events is, and a client that lost a stream can ask for exactly the events after the last one it has
 * (docs/semantics.md §7 "Resuming a stream", ADR 0124, ADR 0125).
 *
 * The rule, on every binding: a stream has a base sequence `s`. Its task snapshot, when it starts with one, is the
 * task as of `s`; its other events come from the log in order without gaps, so the k-th of them is event `s + k`.
 * SSE writes that number as each event's `id:`; gRPC, whose messages have no room for it, sends `s` once in the
 * response metadata and the client counts (ADR 0125).
 */
import type { StreamResponse } from './model.js';

/** The request header (SSE's own, WHATWG HTML §9.2) naming the last event a client has. */
export const LAST_EVENT_ID_HEADER = 'Last-Event-ID';

/** The same in gRPC metadata (metadata keys are lower case). */
export const LAST_EVENT_ID_METADATA = 'last-event-id';

/** gRPC response metadata: the stream's base sequence `s` (see the rule above). */
export const STREAM_SEQ_METADATA = 'a2a-once-stream-seq';

/** The longest sequence text accepted: past `Number.MAX_SAFE_INTEGER` no store counts. */
const MAX_DIGITS = 16;

/**
 * Reads a Last-Event-ID value: a decimal event sequence (`0` or digits without a leading zero, at most
 * `Number.MAX_SAFE_INTEGER`), surrounding spaces allowed. Anything else is `undefined`: the caller refuses it.
 */
export function parseEventSequence(value: string): number | undefined {
  const text = value.trim();
  if (text.length === 0 || text.length > MAX_DIGITS) return undefined;
  if (!/^(0|[1-9][0-9]*)$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * Numbers the events of one stream from its base sequence (the rule above): a `task` snapshot is the base, every
 * other event the next sequence. The log holds no `task` events (a task's log is its status updates, artifact
 * updates and direct reply), so a snapshot is never counted as a log event.
 */
export class EventSequencer {
  private last: number;

  constructor(base: number) {
    this.last = base;
  }

  /** The sequence of the next event of the stream, `event`. */
  next(event: StreamResponse): number {
    if ('task' in event) return this.last;
    this.last += 1;
    return this.last;
  }
}
