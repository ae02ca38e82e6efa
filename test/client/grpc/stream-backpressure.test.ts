/**
 * A slow consumer of a gRPC stream does not make the client buffer without bound (ADR 0113): the reader holds at
 * most 16 received events before it pauses the call, grpc-js then stops reading, and HTTP/2 flow control stops the
 * server's writes. When the consumer reads again, the rest arrives, every event once and in order.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient } from '../../../src/client/index.js';
import { STREAM_BUFFER_EVENTS, grpcTransport } from '../../../src/client/grpc/index.js';
import { GrpcStreamReader } from '../../../src/client/grpc/stream-reader.js';
import { CallScope } from '../../../src/client/transport/call-scope.js';
import type { StreamResponse } from '../../../src/protocol/model.js';
import { startScriptedServer, type ScriptedServer } from './scripted-grpc-server.js';

/** Events of about 2 KiB each: the buffers between the two ends (HTTP/2's window, grpc-js) hold about fifty. */
const EVENTS = 300;
let server: ScriptedServer;
beforeAll(async () => {
  server = await startScriptedServer();
});
afterAll(async () => {
  await server.close();
});

/**
 * The value once it stopped changing: there is no event for "nothing more arrives", so it is read every 10 ms
 * until it holds for 100 ms (bounded by the test's timeout).
 */
async function steady(read: () => number): Promise<number> {
  let value = read();
  let since = Date.now();
  while (Date.now() - since < 100) {
    await new Promise((r) => setTimeout(r, 10));
    const now = read();
    if (now !== value) {
      value = now;
      since = Date.now();
    }
  }
  return value;
}

describe('stream backpressure (ADR 0113)', () => {
  it('the server is held once the consumer stops reading, and the reader holds at most 16 events', async () => {
    const transport = grpcTransport({ insecure: true }).create({
      url: server.address,
      tenant: undefined,
      protocolVersion: '1.0',
      maxResponseBytes: 1 << 20,
    });
    const scope = new CallScope({}).attempt(undefined);
    const stream = await transport.openStream(
      'SubscribeToTask',
      { id: 'task-1' },
      {
        scope,
        headers: { 'a2a-version': '1.0', 'x-events': String(EVENTS), 'x-pad': '2000' },
        fetch: () => Promise.reject(new Error('gRPC does not fetch')),
        maxResponseBytes: 1 << 20,
      },
    );
    expect(stream).toBeInstanceOf(GrpcStreamReader);
    const reader = stream as GrpcStreamReader;
    const it = reader[Symbol.asyncIterator]();
    const first = (await it.next()).value as StreamResponse;
    expect('task' in first).toBe(true);
    // The consumer stops here: the server's writes are refused once the buffers between are full, and stay so.
    await server.blocked();
    const heldAt = await steady(() => server.written());
    expect(heldAt).toBeLessThan(EVENTS / 3);
    expect(reader.buffered).toBeLessThanOrEqual(STREAM_BUFFER_EVENTS);
    expect(reader.isPaused).toBe(true);
    // Reading again lets the rest through: every event, once, in order, then the end.
    let updates = 0;
    let last: StreamResponse | undefined;
    for (;;) {
      const r = await it.next();
      if (r.done === true) break;
      last = r.value as StreamResponse;
      if ('statusUpdate' in last && last.statusUpdate.status.state === 'TASK_STATE_WORKING') updates++;
      expect(reader.buffered).toBeLessThanOrEqual(STREAM_BUFFER_EVENTS);
    }
    expect(updates).toBe(EVENTS);
    expect(last && 'statusUpdate' in last && last.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    scope.dispose();
  });

  it('through A2AClient.subscribe: a consumer that stops early cancels the call', async () => {
    const client = A2AClient.fromEndpoint(server.address, {
      binding: 'GRPC',
      transports: [grpcTransport({ insecure: true })],
    });
    let seen = 0;
    for await (const _ of client.subscribe('task-1', { headers: { 'x-events': String(EVENTS) } })) {
      if (++seen === 3) break;
    }
    expect(seen).toBe(3);
    // The server saw the cancellation: it stopped well before writing everything.
    expect(server.written()).toBeLessThan(EVENTS);
  });
});
