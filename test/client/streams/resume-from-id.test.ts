/**
 * The client's view of event ids, per binding (ADR 0124, ADR 0126): every event `sendStream` yields from an
 * a2a-once peer carries its task sequence (`eventSequenceOf`: SSE `id:`, gRPC's base sequence plus the count), and
 * `subscribe(taskId, { afterEventId })` yields exactly the events after it, even of a finished task, over
 * JSON-RPC, HTTP+JSON and gRPC; an id the peer refuses is its error, and a malformed one never leaves.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient, ClientError, eventSequenceOf } from '../../../src/client/index.js';
import { grpcTransport } from '../../../src/client/grpc/index.js';
import type { AgentCard } from '../../../src/protocol/agent-card.js';
import { A2AError } from '../../../src/protocol/errors.js';
import type { StreamResponse } from '../../../src/protocol/model.js';
import { startOnceGrpcAgent, type OnceGrpcAgent } from '../grpc/once-grpc-agent.js';

let agent: OnceGrpcAgent;
let card: AgentCard;
const grpc = grpcTransport({ insecure: true });

beforeAll(async () => {
  agent = await startOnceGrpcAgent({ chunkDelayMs: 2 });
  card = await agent.card();
});
afterAll(async () => {
  await agent.close();
});

async function collect(stream: AsyncIterable<StreamResponse>): Promise<StreamResponse[]> {
  const out: StreamResponse[] = [];
  for await (const ev of stream) out.push(ev);
  return out;
}

const CHUNKS = 8;

describe.each(['JSONRPC', 'HTTP+JSON', 'GRPC'] as const)('%s', (binding) => {
  const client = () =>
    A2AClient.fromCard(card, { transports: [grpc], preferredBindings: [binding], attemptTimeoutMs: 5_000 });

  it('numbers every event it yields: the snapshot 0, then each event of the log', async () => {
    const events = await collect(client().sendStream(`chunks:${CHUNKS}`));
    expect(events).toHaveLength(CHUNKS + 3);
    expect(events.map((e) => eventSequenceOf(e))).toEqual(Array.from({ length: CHUNKS + 3 }, (_, i) => i));
  });

  it('subscribes after any event of a finished task and gets exactly the rest, no snapshot', async () => {
    const c = client();
    const all = await collect(c.sendStream(`chunks:${CHUNKS}`));
    const taskId = (all[0] as { task: { id: string } }).task.id;
    for (let after = 0; after < all.length - 1; after++) {
      const rest = await collect(c.subscribe(taskId, { afterEventId: after }));
      expect({ after, rest }).toEqual({ after, rest: all.slice(after + 1) });
      expect(rest.map((e) => eventSequenceOf(e))).toEqual(
        Array.from({ length: all.length - after - 1 }, (_, i) => after + 1 + i),
      );
    }
  });

  it('ends with the peer refusal of an id past the task last event', async () => {
    const c = client();
    const all = await collect(c.sendStream(`chunks:${CHUNKS}`));
    const taskId = (all[0] as { task: { id: string } }).task.id;
    const err = await collect(c.subscribe(taskId, { afterEventId: 99 })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(A2AError);
    expect((err as A2AError).reason).toBe('LAST_EVENT_ID_INVALID');
    expect((err as A2AError).metadata).toMatchObject({ latestEventId: String(CHUNKS + 2) });
  });

  it('refuses a malformed afterEventId before sending anything', () => {
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 53])
      expect(() => client().subscribe('t', { afterEventId: bad }), String(bad)).toThrow(ClientError);
  });
});
