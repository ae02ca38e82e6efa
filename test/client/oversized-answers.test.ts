/**
 * An answer to a send that is larger than the client's `maxResponseBytes` (ADR 0069): it is a 200 that arrived,
 * so the send ran or may have. It is neither a definite refusal nor "not sent": the send ends in
 * `OutcomeUnknownError` whose cause is the ambiguous `TransportError` `RESPONSE_TOO_LARGE`, after one attempt
 * (a replay would bring the same task back, no smaller). With a key and a peer that honours keys, resending with
 * that key from a client that reads more is the way out: a replay, and the agent does not run again.
 *
 * Peers: an a2a-once echo agent (honours keys) and an `@a2a-js/sdk` agent (ignores keys), each behind a logging
 * proxy; the agents' answers carry the text they were sent, twice (history and artifact).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  A2AClient,
  OutcomeUnknownError,
  TransportError,
  cardUrlOf,
  fetchAgentCard,
} from '../../src/client/index.js';
import type { A2AClientOptions } from '../../src/client/index.js';
import type { AgentCard } from '../../src/protocol/agent-card.js';
import { startOnceAgent } from '../helpers/once-agent.js';
import type { OnceAgent } from '../helpers/once-agent.js';
import { startJsAgent } from './harness/a2a-js-server.js';
import type { JsAgent } from './harness/a2a-js-server.js';
import { FaultProxy, isCall } from './harness/fault-proxy.js';

const KiB = 1024;
const LIMIT = 256 * KiB;
/** Fits in one request (the server reads 4 MiB), and its answer (the text twice) is past LIMIT. */
const BIG_TEXT = 'x'.repeat(200 * KiB);

function proxied(card: AgentCard, proxy: FaultProxy): AgentCard {
  return {
    ...card,
    supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, url: proxy.via(i.url) })),
  };
}

const fast: A2AClientOptions = { retry: { maxAttempts: 4, backoff: { initialMs: 10, maxMs: 20 } } };

describe('an oversized answer to a keyed send (a2a-once, honours keys)', () => {
  let agent: OnceAgent;
  let proxy: FaultProxy;
  let card: AgentCard;
  beforeAll(async () => {
    agent = await startOnceAgent();
    proxy = await FaultProxy.start(agent.url);
    card = proxied(await fetchAgentCard(cardUrlOf(agent.url)), proxy);
  });
  afterAll(async () => {
    await proxy?.close();
    await agent?.close();
  });
  beforeEach(() => proxy.reset());

  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) {
    it(`${binding}: ends in OutcomeUnknownError after one attempt; a resend with the key replays`, async () => {
      const small = A2AClient.fromCard(card, {
        ...fast,
        preferredBindings: [binding],
        maxResponseBytes: LIMIT,
      });
      expect(small.peerHonoursKeys).toBe(true);
      const runs = agent.runs();
      const err = await small.send(BIG_TEXT).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OutcomeUnknownError);
      const unknown = err as OutcomeUnknownError;
      expect(unknown.peerHonoursKeys).toBe(true);
      expect(unknown.cause).toBeInstanceOf(TransportError);
      expect(unknown.cause).toMatchObject({
        kind: 'ambiguous',
        code: 'RESPONSE_TOO_LARGE',
        limitBytes: LIMIT,
        httpStatus: 200,
      });
      expect(proxy.count(isCall('SendMessage'))).toBe(1);
      expect(agent.runs()).toBe(runs + 1);

      // The way out: the same key, from a client that reads more. The peer replays; the agent does not run again.
      const large = A2AClient.fromCard(card, { ...fast, preferredBindings: [binding] });
      const replay = await large.send(BIG_TEXT, { key: unknown.key! });
      expect('task' in replay && replay.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(agent.runs()).toBe(runs + 1);
    });
  }
});

describe('an oversized answer to a send (@a2a-js/sdk, ignores keys)', () => {
  let agent: JsAgent;
  let proxy: FaultProxy;
  let card: AgentCard;
  beforeAll(async () => {
    agent = await startJsAgent();
    proxy = await FaultProxy.start(agent.url);
    card = proxied(await fetchAgentCard(cardUrlOf(agent.url)), proxy);
  });
  afterAll(async () => {
    await proxy?.close();
    await agent?.close();
  });

  // Express reads 100 KiB of a request by default: a smaller text, and a limit its answer still passes.
  const text = 'y'.repeat(60 * KiB);

  it('ends in OutcomeUnknownError after one attempt, and the agent ran once', async () => {
    const client = A2AClient.fromCard(card, { ...fast, maxResponseBytes: 100 * KiB });
    expect(client.peerHonoursKeys).toBe(false);
    const before = agent.executions.length;
    const err = await client.send(text).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect((err as OutcomeUnknownError).cause).toMatchObject({ code: 'RESPONSE_TOO_LARGE' });
    expect(proxy.count(isCall('SendMessage'))).toBe(1);
    expect(agent.executions.length - before).toBe(1);
  });
});
