import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CallScope } from '../../../src/client/transport/call-scope.js';
import { sseEvents } from '../../../src/client/transport/sse-body.js';
import {
  DEFAULT_MAX_EVENT_SIZE,
  SseEventTooLargeError,
  SseParser,
} from '../../../src/client/transport/sse-parser.js';
import type { SseEvent } from '../../../src/client/transport/sse-parser.js';

interface Spec {
  event: string | null;
  data: string[];
  comments: string[];
}

// Field values never contain CR or LF (they end the line); anything else goes, non-ASCII included.
const lineText = fc.string({ unit: 'binary', maxLength: 20 }).map((s) => s.replace(/[\r\n]/g, ''));
const spec: fc.Arbitrary<Spec> = fc.record({
  event: fc.option(
    lineText.filter((s) => s !== ''),
    { nil: null },
  ),
  data: fc.array(lineText, { minLength: 1, maxLength: 4 }),
  comments: fc.array(lineText, { maxLength: 2 }),
});
const eol = fc.constantFrom('\n', '\r\n', '\r');

function serialize(events: Spec[], nl: string): string {
  let out = '';
  for (const e of events) {
    for (const c of e.comments) out += `:${c}${nl}`;
    if (e.event !== null) out += `event: ${e.event}${nl}`;
    for (const d of e.data) out += `data: ${d}${nl}`;
    out += nl;
  }
  return out;
}

function expected(events: Spec[]): SseEvent[] {
  return events.map((e) => ({ event: e.event ?? 'message', data: e.data.join('\n') }));
}

/** Splits `text` at the given cut points (any positions, surrogate halves included). */
function split(text: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let last = 0;
  for (const p of points) {
    out.push(text.slice(last, p));
    last = p;
  }
  out.push(text.slice(last));
  return out;
}

function parseAll(chunks: string[]): SseEvent[] {
  const p = new SseParser();
  const out: SseEvent[] = [];
  for (const c of chunks) out.push(...p.push(c));
  out.push(...p.end());
  return out;
}

describe('SseParser (WHATWG event-stream framing)', () => {
  it('yields the same events however the text is split into chunks, for LF, CRLF and CR line ends', () => {
    fc.assert(
      fc.property(
        fc.array(spec, { maxLength: 6 }),
        eol,
        fc.array(fc.nat(), { maxLength: 12 }),
        (events, nl, cuts) => {
          const text = serialize(events, nl);
          expect(parseAll(split(text, cuts))).toEqual(expected(events));
        },
      ),
    );
  });

  it('frames correctly when UTF-8 bytes are split anywhere, multi-byte characters included', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(spec, { maxLength: 5 }),
        eol,
        fc.array(fc.nat(), { maxLength: 10 }),
        async (events, nl, cuts) => {
          const bytes = new TextEncoder().encode(serialize(events, nl));
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const pieces: Uint8Array[] = [];
          let last = 0;
          for (const p of [...points, bytes.length]) {
            pieces.push(bytes.slice(last, p));
            last = p;
          }
          const body = new ReadableStream<Uint8Array>({
            start(controller) {
              for (const piece of pieces) controller.enqueue(piece);
              controller.close();
            },
          });
          const scope = new CallScope({}).attempt(undefined);
          const got: SseEvent[] = [];
          for await (const ev of sseEvents(body, scope, DEFAULT_MAX_EVENT_SIZE)) got.push(ev);
          scope.dispose();
          // TextEncoder replaces lone surrogates with U+FFFD, so compare against the re-decoded text. Decoded with
          // the BOM kept: a value that starts with U+FEFF is a value (only the stream's own first BOM is dropped),
          // and a default TextDecoder would strip it from the expectation, not from what the parser read.
          const text = (v: string) =>
            new TextDecoder('utf-8', { ignoreBOM: true }).decode(new TextEncoder().encode(v));
          const roundTrip = events.map((e) => ({
            ...e,
            event: e.event === null ? null : text(e.event),
            data: e.data.map(text),
          }));
          expect(got).toEqual(expected(roundTrip));
        },
      ),
      // Found by a run: a data value that is a BOM (U+FEFF) is kept as it is.
      { examples: [[[{ event: null, data: ['\uFEFF'], comments: [] }], '\n', []]] },
    );
  });

  it('joins multi-line data with LF and strips exactly one leading space', () => {
    expect(parseAll(['data:a\ndata:  b\ndata\n\n'])).toEqual([{ event: 'message', data: 'a\n b\n' }]);
  });

  it('treats a CR at the end of one chunk and an LF at the start of the next as one line break', () => {
    expect(parseAll(['data: x\r', '\n\r', '\n'])).toEqual([{ event: 'message', data: 'x' }]);
  });

  it('ignores comments, retry and unknown fields, and blank lines without data', () => {
    expect(parseAll([': keep-alive\n\nretry: 10\nfoo: bar\n\nevent: error\ndata: {}\n\n'])).toEqual([
      { event: 'error', data: '{}' },
    ]);
  });

  it('discards an event whose blank line never arrived (a cut stream)', () => {
    expect(parseAll(['data: one\n\ndata: two\n'])).toEqual([{ event: 'message', data: 'one' }]);
  });

  it('strips a leading BOM and keeps the last id', () => {
    expect(parseAll(['\ufeffid: 7\ndata: x\n\n'])).toEqual([{ event: 'message', data: 'x', id: '7' }]);
  });

  it('refuses an event larger than its limit', () => {
    const p = new SseParser({ maxEventSize: 16 });
    expect(() => p.push('data: 0123456789abcdefghij')).toThrow(SseEventTooLargeError);
  });
});
