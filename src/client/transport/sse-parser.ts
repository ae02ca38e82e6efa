/**
 * An incremental Server-Sent Events parser (WHATWG HTML "event stream interpretation"), fed text in chunks of
 * any size. A2A streams one `StreamResponse` per `data:` event (A2A v1.0), but a proxy or a TCP segment
 * boundary may split a line, a CRLF pair or a multi-byte character anywhere, so the parser keeps its state
 * across chunks and never assumes a chunk is an event.
 */

/** One dispatched event. `event` is `message` unless the stream named it (the JS server names errors `error`). */
export interface SseEvent {
  readonly event: string;
  readonly data: string;
  /** The last `id:` seen, if any (A2A defines none, A2A v1.0; kept for peers that send one). */
  readonly id?: string;
}

/** Thrown when one event grows past the parser's limit: a peer streaming an endless line is not an event. */
export class SseEventTooLargeError extends Error {
  /** The limit that was exceeded, in UTF-16 code units. */
  readonly limit: number;

  constructor(limit: number) {
    super(`SSE event larger than ${limit} characters`);
    this.name = 'SseEventTooLargeError';
    this.limit = limit;
  }
}

/** Default cap on one event (line buffer plus data), like the 4 MiB cap of the JS client, with headroom. */
export const DEFAULT_MAX_EVENT_SIZE = 8 * 1024 * 1024;

/** Incremental SSE parser. `push` returns the events completed by a chunk; `end` discards a partial event. */
export class SseParser {
  private line = '';
  /** The previous chunk ended in CR: a leading LF in the next chunk belongs to the same line break. */
  private skipLeadingLf = false;
  private atStart = true;
  private data = '';
  private hasData = false;
  private eventType = '';
  private lastId: string | undefined;
  private readonly maxEventSize: number;

  constructor(options: { maxEventSize?: number } = {}) {
    this.maxEventSize = options.maxEventSize ?? DEFAULT_MAX_EVENT_SIZE;
  }

  /** Feeds text; returns the events it completed, in order. */
  push(chunk: string): SseEvent[] {
    const out: SseEvent[] = [];
    let text = chunk;
    if (this.atStart && text.length > 0) {
      // A UTF-8 BOM at the very start of the stream is not part of the first field name.
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      this.atStart = false;
    }
    let i = 0;
    if (this.skipLeadingLf && text.length > 0) {
      if (text.charCodeAt(0) === 0x0a) i = 1;
      this.skipLeadingLf = false;
    }
    let start = i;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 0x0a && c !== 0x0d) continue;
      this.line += text.slice(start, i);
      this.processLine(out);
      if (c === 0x0d) {
        if (i + 1 < text.length) {
          if (text.charCodeAt(i + 1) === 0x0a) i++;
        } else {
          this.skipLeadingLf = true;
        }
      }
      start = i + 1;
    }
    if (start < text.length) this.line += text.slice(start);
    if (this.line.length + this.data.length > this.maxEventSize)
      throw new SseEventTooLargeError(this.maxEventSize);
    return out;
  }

  /**
   * The stream ended. An event without its terminating blank line is discarded (WHATWG: "incomplete event"),
   * which is how a cut stream shows: its last event never arrives half-parsed.
   */
  end(): SseEvent[] {
    this.line = '';
    this.data = '';
    this.hasData = false;
    this.eventType = '';
    return [];
  }

  private processLine(out: SseEvent[]): void {
    const line = this.line;
    this.line = '';
    if (line.length === 0) {
      this.dispatch(out);
      return;
    }
    // A comment (keep-alive): ignored.
    if (line.charCodeAt(0) === 0x3a) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 0x20) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data = this.hasData ? `${this.data}\n${value}` : value;
        this.hasData = true;
        if (this.data.length > this.maxEventSize) throw new SseEventTooLargeError(this.maxEventSize);
        break;
      case 'event':
        this.eventType = value;
        break;
      case 'id':
        if (!value.includes('\u0000')) this.lastId = value;
        break;
      default:
        // `retry:` and unknown fields are ignored: A2A defines no reconnection by the browser's rules.
        break;
    }
  }

  private dispatch(out: SseEvent[]): void {
    if (!this.hasData) {
      this.eventType = '';
      return;
    }
    const ev: SseEvent =
      this.lastId === undefined
        ? { event: this.eventType || 'message', data: this.data }
        : { event: this.eventType || 'message', data: this.data, id: this.lastId };
    out.push(ev);
    this.data = '';
    this.hasData = false;
    this.eventType = '';
  }
}
