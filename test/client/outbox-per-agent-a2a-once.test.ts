/**
 * The intent outbox is keyed by agent, tenant and key (ADR 0067), as a key is scoped on the server
 * (docs/semantics.md §1): two real a2a-once servers, A and B, and one outbox shared by their clients. A send to A
 * whose answer was lost stays pending when a later send to B uses the same key, and recovery on A's client
 * resends it, so A runs it once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  A2AClient,
  MemoryIntentStore,
  OutcomeUnknownError,
  SqliteIntentStore,
  cardUrlOf,
  fetchAgentCard,
} from '../../src/client/index.js';
import type { IntentStore } from '../../src/client/index.js';
import type { AgentCard } from '../../src/protocol/agent-card.js';
import { mintKey, setKey } from '../../src/idempotency/index.js';
import { SERVER_BUILT, startOnceServer } from './harness/a2a-once-server.js';
import type { OnceServer } from './harness/a2a-once-server.js';
import { FaultProxy, isCall } from './harness/fault-proxy.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-outbox-per-agent-'));

const stores: [string, () => IntentStore][] = [
  ['memory', () => new MemoryIntentStore()],
  ['sqlite', () => new SqliteIntentStore(new Database(join(dir, `outbox-${mintKey()}.db`)))],
];

describe.skipIf(!SERVER_BUILT)('one outbox, two agents, one key (a2a-once servers)', () => {
  let agentA: OnceServer;
  let agentB: OnceServer;
  let proxyA: FaultProxy;
  let cardA: AgentCard;

  beforeAll(async () => {
    [agentA, agentB] = await Promise.all([
      startOnceServer(dir, 'slow', 20),
      startOnceServer(dir, 'slow', 20),
    ]);
    proxyA = await FaultProxy.start(agentA.url);
    cardA = await fetchAgentCard(cardUrlOf(agentA.url));
  });
  afterAll(async () => {
    await proxyA?.close();
    await agentA?.close();
    await agentB?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => proxyA.reset());

  /** A's client, through the proxy that can lose A's answers. */
  function clientOfA(intentStore: IntentStore, retry: false | undefined = undefined): A2AClient {
    return A2AClient.fromCard(
      {
        ...cardA,
        supportedInterfaces: cardA.supportedInterfaces.map((i) => ({ ...i, url: proxyA.via(i.url) })),
      },
      {
        cardUrl: cardUrlOf(proxyA.url),
        intentStore,
        preferredBindings: ['JSONRPC'],
        ...(retry === false ? { retry: false } : {}),
      },
    );
  }

  it.each(stores)(
    '%s: a lost send to A stays pending after a send to B with its key, and recovery runs it on A once',
    async (_name, make) => {
      const store = make();
      const key = mintKey();
      const toA = clientOfA(store, false);
      proxyA.inject({ kind: 'drop-response' }, isCall('SendMessage'));
      const lost = await toA.send('pay invoice 7 at A', { key }).catch((e: unknown) => e);
      expect(lost).toBeInstanceOf(OutcomeUnknownError);
      const messageIdAtA = (lost as OutcomeUnknownError).messageId;
      expect(agentA.executionsOf(messageIdAtA)).toBe(1);

      const toB = await A2AClient.fromCardUrl(agentB.url, { intentStore: store });
      const atB = await toB.send('pay invoice 7 at B', { key });
      expect('task' in atB && atB.task.status.state).toBe('TASK_STATE_COMPLETED');

      expect((await store.pending(cardUrlOf(proxyA.url))).map((i) => i.messageId)).toEqual([messageIdAtA]);
      expect(await store.pending(cardUrlOf(agentB.url))).toEqual([]);

      const restartedA = clientOfA(store);
      const report = await restartedA.recoverPending();
      expect(report.map((r) => [r.messageId, r.status])).toEqual([[messageIdAtA, 'resent']]);
      const replay = report[0]!.response!;
      expect('task' in replay && replay.task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(agentA.executionsOf(messageIdAtA)).toBe(1);
      expect(await restartedA.recoverPending()).toEqual([]);
    },
  );

  it.each(stores)(
    '%s: a send to A recorded but never attempted is not settled by B, and runs once on A at recovery',
    async (_name, make) => {
      const store = make();
      const key = mintKey();
      const message = setKey(
        {
          messageId: `never-sent-${mintKey()}`,
          role: 'ROLE_USER',
          parts: [{ text: 'recorded, then a crash' }],
        },
        key,
      );
      await store.record({
        key,
        messageId: message.messageId,
        target: cardUrlOf(proxyA.url),
        request: { message },
        streaming: false,
        createdAt: Date.now(),
      });
      const toB = await A2AClient.fromCardUrl(agentB.url, { intentStore: store });
      await toB.send('the same key, another agent', { key });

      const report = await clientOfA(store).recoverPending();
      expect(report.map((r) => [r.messageId, r.status])).toEqual([[message.messageId, 'resent']]);
      expect(agentA.executionsOf(message.messageId)).toBe(1);
      expect(await store.pending()).toEqual([]);
    },
  );
});
