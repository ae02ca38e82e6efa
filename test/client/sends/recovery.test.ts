/**
 * What recovery does with the tenant of a recorded intent (ADR 0034, ADR 0022): a keyed send records the tenant
 * it is bound to, and an intent whose tenant no interface serves is reported, never resent elsewhere, and stays
 * pending. No peer is needed: nothing is sent.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  A2AClient,
  ClientError,
  MemoryIntentStore,
  SqliteIntentStore,
  TransportError,
} from '../../../src/client/index.js';
import type { SendIntent } from '../../../src/client/index.js';
import type { AgentCard } from '../../../src/protocol/agent-card.js';
import { mintKey, setKey } from '../../../src/idempotency/index.js';

const CARD_URL = 'http://agent.invalid/.well-known/agent-card.json';

function cardWith(tenants: (string | undefined)[]): AgentCard {
  return {
    name: 'a',
    description: 'a',
    version: '1',
    supportedInterfaces: tenants.map((tenant) => ({
      url: 'http://agent.invalid/rpc',
      protocolBinding: 'JSONRPC',
      protocolVersion: '1.0',
      ...(tenant === undefined ? {} : { tenant }),
    })),
    capabilities: {},
    defaultInputModes: [],
    defaultOutputModes: [],
    skills: [],
  };
}

function intentFor(tenant: string | undefined): SendIntent {
  const key = mintKey();
  const message = setKey({ messageId: `m-${key}`, role: 'ROLE_USER', parts: [{ text: 'x' }] }, key);
  return {
    key,
    messageId: message.messageId,
    target: CARD_URL,
    request: tenant === undefined ? { message } : { message, tenant },
    streaming: false,
    createdAt: Date.now(),
  };
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

describe('recovery and the tenant of an intent', () => {
  it.each([
    ['bound to another tenant', 't1', ['t2']],
    ['recorded without a tenant, where every interface has one', undefined, ['t1', 't2']],
  ] as const)('an intent %s is reported failed and stays pending', async (_name, tenant, interfaces) => {
    const store = new MemoryIntentStore();
    const intent = intentFor(tenant);
    await store.record(intent);
    const client = A2AClient.fromCard(cardWith([...interfaces]), {
      cardUrl: CARD_URL,
      peerHonoursKeys: true,
      intentStore: store,
    });
    const report = await client.recoverPending();
    expect(report).toHaveLength(1);
    expect(report[0]!.status).toBe('failed');
    expect(report[0]!.error).toBeInstanceOf(ClientError);
    expect((report[0]!.error as ClientError).code).toBe('NO_USABLE_INTERFACE');
    expect((await store.pending()).map((i) => i.key)).toEqual([intent.key]);
  });

  it('a keyed send records the tenant it is bound to, and sends it only as the interface does', async () => {
    const db = new Database(':memory:');
    const client = A2AClient.fromEndpoint(`http://127.0.0.1:${await closedPort()}/rpc`, {
      tenant: 'acme',
      peerHonoursKeys: true,
      intentStore: new SqliteIntentStore(db),
      retry: false,
    });
    const err = await client.send('bound to acme').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect((err as TransportError).kind).toBe('not-sent');
    const rows = db.prepare('SELECT request, outcome FROM a2a_once_client_intents').all() as {
      request: string;
      outcome: string;
    }[];
    expect(rows).toHaveLength(1);
    expect((JSON.parse(rows[0]!.request) as { tenant?: string }).tenant).toBe('acme');
    expect(JSON.parse(rows[0]!.outcome)).toEqual({ status: 'not-sent' });
  });
});
