/**
 * Credentials over gRPC against our own server with a bearer-token authenticator (ADR 0079, ADR 0112): the
 * credential travels as `authorization` metadata; a refused one (UNAUTHENTICATED) makes the provider give a fresh one
 * and the call is resent once (an unkeyed send and a stream too), and the agent ran once; a fixed credential that
 * is refused is final.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient } from '../../../src/client/index.js';
import type { A2AClientOptions } from '../../../src/client/index.js';
import { grpcTransport } from '../../../src/client/grpc/index.js';
import { UnauthenticatedError } from '../../../src/protocol/errors.js';
import type { AgentCard } from '../../../src/protocol/agent-card.js';
import { bearerTokens } from '../../../src/server/index.js';
import { startOnceGrpcAgent, type OnceGrpcAgent } from './once-grpc-agent.js';

const FRESH = 'fresh-token-0123456789abcdef';
let agent: OnceGrpcAgent;
let card: AgentCard;
beforeAll(async () => {
  agent = await startOnceGrpcAgent({
    http: { authenticate: bearerTokens({ tokens: [{ token: FRESH, principal: 'alice' }] }) },
  });
  card = await agent.card();
});
afterAll(() => agent.close());

function clientWith(credentials: A2AClientOptions['credentials']): A2AClient {
  return A2AClient.fromCard(card, {
    transports: [grpcTransport({ insecure: true })],
    preferredBindings: ['GRPC'],
    credentials,
  });
}

/** A provider whose first credential has expired: it gives the fresh one when asked to refresh. */
function expiring(asked: boolean[]): A2AClientOptions['credentials'] {
  return ({ refresh }) => {
    asked.push(refresh);
    return { bearer: refresh ? FRESH : 'expired-token-0123456789abcd' };
  };
}

describe('credentials over gRPC', () => {
  it('UNAUTHENTICATED: refreshed and resent once; the unkeyed send ran once', async () => {
    expect(
      A2AClient.fromCard(card, {
        transports: [grpcTransport({ insecure: true })],
        preferredBindings: ['GRPC'],
      }).endpoint.binding,
    ).toBe('GRPC');
    const asked: boolean[] = [];
    const before = agent.runs.length;
    const res = await clientWith(expiring(asked)).send('with a fresh token', { key: false });
    expect('task' in res && res.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(asked).toEqual([false, true]);
    expect(agent.runs.length - before).toBe(1);
  });

  it('a stream is refreshed the same way', async () => {
    const asked: boolean[] = [];
    const events = [];
    for await (const ev of clientWith(expiring(asked)).sendStream('streamed', { key: false }))
      events.push(ev);
    expect(events.length).toBeGreaterThan(1);
    expect(asked).toEqual([false, true]);
  });

  it('a fixed credential that is refused is final: nothing ran', async () => {
    const before = agent.runs.length;
    await expect(
      clientWith({ bearer: 'wrong-token-0123456789abcdef' }).send('refused', { key: false }),
    ).rejects.toBeInstanceOf(UnauthenticatedError);
    expect(agent.runs.length).toBe(before);
  });
});
