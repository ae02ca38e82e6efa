/**
 * A 200 answer to a keyed send that the client cannot read, after a real a2a-once server ran the send (ADR 0068):
 * the fault proxy lets the server finish, then answers 200 with a task in a state this client does not know. The
 * caller gets `OutcomeUnknownError`, the intent stays pending, and recovery replays the send: one execution.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  A2AClient,
  OutcomeUnknownError,
  SqliteIntentStore,
  cardUrlOf,
  fetchAgentCard,
} from '../../src/client/index.js';
import type { AgentCard } from '../../src/protocol/agent-card.js';
import { InvalidAgentResponseError } from '../../src/protocol/errors.js';
import { mintKey } from '../../src/idempotency/index.js';
import { SERVER_BUILT, startOnceServer } from './harness/a2a-once-server.js';
import type { OnceServer } from './harness/a2a-once-server.js';
import { FaultProxy, isCall } from './harness/fault-proxy.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-unreadable-'));

/** A newer server's answer: a task in a state this client does not know. */
function futureTask(binding: 'JSONRPC' | 'HTTP+JSON'): string {
  const result = { task: { id: 'task-from-the-future', status: { state: 'TASK_STATE_TELEPORTED' } } };
  return JSON.stringify(binding === 'JSONRPC' ? { jsonrpc: '2.0', id: 1, result } : result);
}

describe.skipIf(!SERVER_BUILT)('an unreadable 200 after the a2a-once server ran a keyed send', () => {
  let server: OnceServer;
  let proxy: FaultProxy;
  let card: AgentCard;
  beforeAll(async () => {
    server = await startOnceServer(dir, 'slow', 20);
    proxy = await FaultProxy.start(server.url);
    card = await fetchAgentCard(cardUrlOf(server.url));
  });
  afterAll(async () => {
    await proxy?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  function viaProxy(binding: 'JSONRPC' | 'HTTP+JSON', file: string): A2AClient {
    return A2AClient.fromCard(
      {
        ...card,
        supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, url: proxy.via(i.url) })),
      },
      {
        cardUrl: cardUrlOf(proxy.url),
        preferredBindings: [binding],
        intentStore: new SqliteIntentStore(new Database(file)),
        logger: { warn() {}, error() {} },
      },
    );
  }

  it.each(['JSONRPC', 'HTTP+JSON'] as const)(
    '%s: outcome unknown, pending, and recovery replays it once',
    async (binding) => {
      const file = join(dir, `intents-${mintKey()}.db`);
      const messageId = `unreadable-${mintKey()}`;
      proxy.inject(
        { kind: 'replace', status: 200, body: () => futureTask(binding) },
        (r) => isCall('SendMessage')(r) && r.body.includes(messageId),
      );
      const err = await viaProxy(binding, file)
        .send({ messageId, parts: [{ text: 'answered by a newer server' }] })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OutcomeUnknownError);
      expect((err as Error).cause).toBeInstanceOf(InvalidAgentResponseError);
      expect(server.executionsOf(messageId)).toBe(1);

      const restarted = viaProxy(binding, file);
      const report = await restarted.recoverPending();
      expect(report.map((r) => [r.messageId, r.status])).toEqual([[messageId, 'resent']]);
      expect(server.executionsOf(messageId)).toBe(1);
      expect(await restarted.recoverPending()).toEqual([]);
    },
  );
});
