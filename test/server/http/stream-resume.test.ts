/**
 * Streams resumed by Last-Event-ID (docs/semantics.md §7 "Resuming a stream", ADR 0124, ADR 0125), on both HTTP
 * bindings: every event's `id:` is its task sequence; a SubscribeToTask with `Last-Event-ID: L` gets exactly the
 * log's events after L (no snapshot), the replayed ones and then the live ones with no gap and no duplicate at
 * the seam; a finished task resumed from before its end replays the rest; bad ids are refused with
 * LAST_EVENT_ID_INVALID.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseEventSequence } from '../../../src/protocol/event-sequence.js';
import type { StreamResponse } from '../../../src/protocol/model.js';
import type { A2AServer } from '../../../src/server/index.js';
import { MemoryTaskStore } from '../../../src/store/memory/index.js';
import { DEFAULT_SCOPE } from '../../../src/store/scope.js';
import {
  expectRestError,
  expectRpcError,
  readSse,
  restRequest,
  rpcJson,
  rpcRequest,
  SseReader,
  uid,
  userMsg,
  waitUntil,
  type SseFrame,
} from '../../helpers/http.js';
import { inlineServer } from './fixtures.js';

/** The agent's events: WORKING, 8 chunks (4, then 4 more once released), COMPLETED. */
const FIRST = 4;
const CHUNKS = 8;

let store: MemoryTaskStore;
let server: A2AServer;
let release: () => void;
let released: Promise<void>;

beforeEach(() => {
  store = new MemoryTaskStore();
  released = new Promise<void>((r) => (release = r));
  server = inlineServer(
    async (ctx) => {
      await ctx.working();
      for (let i = 0; i < CHUNKS; i++) {
        if (i === FIRST) await released;
        await ctx.artifact({ artifactId: 'out', parts: [{ text: `c${i}` }] }, { append: i > 0 });
      }
      await ctx.complete();
    },
    {},
    { store },
  );
});

afterEach(async () => {
  release();
  await server.close();
});

const SCOPE = DEFAULT_SCOPE;

/** Starts the task and waits until its first `FIRST` chunks are in the log (seq 1 + FIRST). */
async function startTask(): Promise<string> {
  const env = await rpcJson(
    await server.fetch(
      rpcRequest('SendMessage', { message: userMsg(uid()), configuration: { returnImmediately: true } }),
    ),
  );
  const id = (env.result as { task: { id: string } }).task.id;
  await waitUntil(async () => (await store.getTask(SCOPE, id))?.seq === 1 + FIRST);
  return id;
}

/** The task's log, as `[seq, event]`. */
async function logOf(id: string): Promise<[number, StreamResponse][]> {
  return (await store.readEvents(SCOPE, id, 0)).map((e) => [e.seq, e.event]);
}

type Binding = 'jsonrpc' | 'rest';

function subscribe(binding: Binding, id: string, headers: Record<string, string>): Promise<Response> {
  return server.fetch(
    binding === 'jsonrpc'
      ? rpcRequest('SubscribeToTask', { id }, { headers })
      : restRequest('POST', `/tasks/${id}:subscribe`, undefined, { headers }),
  );
}

/** A frame's StreamResponse (JSON-RPC frames wrap it in a response). */
function eventOf(binding: Binding, f: SseFrame): StreamResponse {
  return (binding === 'jsonrpc' ? (f.data as { result: unknown }).result : f.data) as StreamResponse;
}

describe('Last-Event-ID values', () => {
  it('reads decimal sequences and nothing else', () => {
    expect(parseEventSequence('0')).toBe(0);
    expect(parseEventSequence(' 42 ')).toBe(42);
    expect(parseEventSequence(String(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
    for (const bad of ['', ' ', '-1', '+1', '01', '1.0', '1e3', '0x10', 'abc', '9007199254740992', '1 2'])
      expect(parseEventSequence(bad), bad).toBeUndefined();
  });

  it('reads back every sequence it writes, and refuses every other text', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
        (n) => parseEventSequence(String(n)) === n,
      ),
    );
    fc.assert(
      fc.property(fc.string(), (s) => {
        const n = parseEventSequence(s);
        return n === undefined || String(n) === s.trim();
      }),
    );
  });
});

describe('REST GET /tasks/{id}:subscribe, as a browser EventSource reconnects', () => {
  it('resumes after Last-Event-ID with no body and no A2A-Version, as EventSource sends it', async () => {
    const id = await startTask();
    release();
    await waitUntil(
      async () => (await store.getTask(SCOPE, id))?.task.status.state === 'TASK_STATE_COMPLETED',
    );
    const res = await server.fetch(
      new Request(`http://a2a.test/tasks/${id}:subscribe`, {
        headers: { Accept: 'text/event-stream', 'Last-Event-ID': '8' },
      }),
    );
    const frames = await readSse(res);
    expect(frames.map((f) => f.id)).toEqual(['9', '10']);
  });
});

describe.each<Binding>(['jsonrpc', 'rest'])('%s: resuming a stream', (binding) => {
  it('numbers a subscription from the snapshot: the snapshot is the task at its sequence', async () => {
    const id = await startTask();
    const reader = new SseReader(await subscribe(binding, id, {}));
    const snapshot = await reader.frame();
    expect('task' in eventOf(binding, snapshot)).toBe(true);
    expect(snapshot.id).toBe(String(1 + FIRST));
    release();
    const ids: string[] = [];
    for (let f = await reader.next(5000); typeof f !== 'string'; f = await reader.next(5000)) ids.push(f.id!);
    expect(ids).toEqual(['6', '7', '8', '9', '10']);
  });

  it('replays exactly the events after the id, then goes on live: no gap, no duplicate at the seam', async () => {
    const id = await startTask();
    // Resume after event 2 (the first chunk): events 3..5 are replayed, 6..10 come live.
    const reader = new SseReader(await subscribe(binding, id, { 'Last-Event-ID': '2' }));
    const replayed: SseFrame[] = [];
    for (let i = 0; i < FIRST - 1; i++) replayed.push(await reader.frame());
    release();
    const frames = [...replayed];
    for (let f = await reader.next(5000); typeof f !== 'string'; f = await reader.next(5000)) frames.push(f);
    const log = await logOf(id);
    expect(frames.map((f) => Number(f.id))).toEqual(log.slice(2).map(([seq]) => seq));
    expect(frames.map((f) => eventOf(binding, f))).toEqual(log.slice(2).map(([, ev]) => ev));
    expect(frames.some((f) => 'task' in eventOf(binding, f))).toBe(false);
  });

  it('resumes at the last event with nothing replayed, and gets what comes next', async () => {
    const id = await startTask();
    const reader = new SseReader(await subscribe(binding, id, { 'Last-Event-ID': String(1 + FIRST) }));
    expect(await reader.next(150)).toBe('timeout');
    release();
    const first = await reader.frame();
    expect(first.id).toBe(String(2 + FIRST));
    await reader.close();
  });

  it('replays the rest of a task that finished while the caller was away, then ends', async () => {
    const id = await startTask();
    release();
    await waitUntil(
      async () => (await store.getTask(SCOPE, id))?.task.status.state === 'TASK_STATE_COMPLETED',
    );
    const frames = await readSse(await subscribe(binding, id, { 'Last-Event-ID': '7' }));
    const log = await logOf(id);
    expect(frames.map((f) => Number(f.id))).toEqual([8, 9, 10]);
    expect(frames.map((f) => eventOf(binding, f))).toEqual(log.slice(7).map(([, ev]) => ev));
  });

  it('refuses a finished task resumed at its last event, as any subscription to it (A2A v1.0)', async () => {
    const id = await startTask();
    release();
    await waitUntil(
      async () => (await store.getTask(SCOPE, id))?.task.status.state === 'TASK_STATE_COMPLETED',
    );
    const res = await subscribe(binding, id, { 'Last-Event-ID': '10' });
    if (binding === 'jsonrpc') expectRpcError(await rpcJson(res), -32004, 'UNSUPPORTED_OPERATION');
    else await expectRestError(res, 400, 'FAILED_PRECONDITION', 'UNSUPPORTED_OPERATION');
  });

  it.each([['abc'], ['-1'], ['01'], ['1.5'], ['']])(
    'refuses Last-Event-ID %j as LAST_EVENT_ID_INVALID',
    async (v) => {
      const id = await startTask();
      const res = await subscribe(binding, id, { 'Last-Event-ID': v });
      if (binding === 'jsonrpc')
        expectRpcError(await rpcJson(res), -32602, 'LAST_EVENT_ID_INVALID', 'a2a-once');
      else await expectRestError(res, 400, 'INVALID_ARGUMENT', 'LAST_EVENT_ID_INVALID', 'a2a-once');
    },
  );

  it('refuses an id past the task last event, naming both', async () => {
    const id = await startTask();
    const res = await subscribe(binding, id, { 'Last-Event-ID': '99' });
    if (binding === 'jsonrpc') {
      const env = await rpcJson(res);
      expectRpcError(env, -32602, 'LAST_EVENT_ID_INVALID', 'a2a-once');
      expect(JSON.stringify(env.error)).toContain('"latestEventId":"5"');
    } else {
      const body = await expectRestError(res, 400, 'INVALID_ARGUMENT', 'LAST_EVENT_ID_INVALID', 'a2a-once');
      expect(JSON.stringify(body)).toContain('"latestEventId":"5"');
    }
  });

  it('ignores Last-Event-ID on other calls: a send streams from its snapshot', async () => {
    release();
    const res = await server.fetch(
      binding === 'jsonrpc'
        ? rpcRequest(
            'SendStreamingMessage',
            { message: userMsg(uid()) },
            { headers: { 'Last-Event-ID': 'x' } },
          )
        : restRequest(
            'POST',
            '/message:stream',
            { message: userMsg(uid()) },
            { headers: { 'Last-Event-ID': 'x' } },
          ),
    );
    const frames = await readSse(res);
    expect(frames.map((f) => f.id)).toEqual([
      '0',
      '1',
      ...Array.from({ length: CHUNKS }, (_, i) => String(i + 2)),
      '10',
    ]);
  });
});
