/**
 * Every card the CLI agents serve declares only what the server does: a capability whose behaviour is not built
 * is not advertised, since a peer plans on what the card says. Push delivery is not built, so no
 * demo card says `pushNotifications: true` unless the one switch for it, `DemoAgentOptions.pushNotifications`,
 * says the server delivers. The exact capabilities object of each served card is asserted, so a flag added
 * without its behaviour fails here.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { AGENT_NAMES, createAgent, type AgentName } from '../../../src/cli/agents/index.js';
import { DELEGATION_EXTENSION_URI } from '../../../src/delegation/delegation-wire.js';
import { IDEMPOTENCY_EXTENSION_URI } from '../../../src/idempotency/index.js';
import type { AgentCapabilities, AgentCard, AgentExtension } from '../../../src/protocol/agent-card.js';
import { createA2AServer, type A2AServer } from '../../../src/server/index.js';
import { localCallContext } from '../../../src/server/call-context.js';

const servers: A2AServer[] = [];

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

/** Serves a built-in agent as `serve --agent` does (memory store: it honours keys). */
function serve(name: AgentName, pushNotifications?: boolean): A2AServer {
  // The ledger agent needs a ledger URL to be built; nothing is posted to it here.
  const options = {
    ledgerUrl: 'http://127.0.0.1:9/',
    ...(pushNotifications === undefined ? {} : { pushNotifications }),
  };
  const agent = createAgent(name, options);
  const server = createA2AServer({
    agent: agent.executor,
    card: agent.card,
    ...(agent.extendedCard ? { extendedCard: agent.extendedCard } : {}),
  });
  servers.push(server);
  return server;
}

async function servedCard(server: A2AServer): Promise<AgentCard> {
  const res = await server.fetch(new Request('http://a2a.test/.well-known/agent-card.json'));
  return (await res.json()) as AgentCard;
}

// The extensions are matched by URI (their descriptions and params are their own tests' business).
const idempotency = expect.objectContaining({
  uri: IDEMPOTENCY_EXTENSION_URI,
  required: false,
}) as AgentExtension;
const delegation = expect.objectContaining({
  uri: DELEGATION_EXTENSION_URI,
  required: false,
}) as AgentExtension;

/** What each agent's served public card declares: built behaviour only. */
const EXPECTED: Record<AgentName, AgentCapabilities> = {
  echo: { streaming: true, extensions: [idempotency, delegation] },
  tck: {
    streaming: true,
    pushNotifications: false,
    extendedAgentCard: true,
    extensions: [idempotency, delegation],
  },
  ask: { streaming: true, extensions: [idempotency, delegation] },
  slow: { streaming: true, extensions: [idempotency, delegation] },
  // Its own card declares delegation first; the server appends the key extension.
  delegating: { streaming: true, extensions: [delegation, idempotency] },
  ledger: { streaming: true, extensions: [idempotency, delegation] },
  tree: { streaming: true, extensions: [delegation, idempotency] },
};

describe('the cards of the CLI agents', () => {
  it('cover every agent `serve --agent` accepts', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...AGENT_NAMES].sort());
  });

  it.each(AGENT_NAMES)('%s: the served card declares exactly the built capabilities', async (name) => {
    const card = await servedCard(serve(name));
    expect(card.capabilities).toEqual(EXPECTED[name]);
    expect(card.capabilities.pushNotifications).not.toBe(true);
  });

  it.each(AGENT_NAMES)('%s: push-config operations are refused, as the card says', async (name) => {
    const server = serve(name);
    // Thrown or rejected, the refusal is the one the card announces.
    const call = Promise.resolve().then(() =>
      server.handler.listTaskPushNotificationConfigs({ taskId: 'any' }, localCallContext()),
    );
    await expect(call).rejects.toMatchObject({ reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED' });
  });

  it('tck: the extended card declares the same flags as the public one (no push)', async () => {
    const server = serve('tck');
    const ext = await server.handler.getExtendedAgentCard({}, localCallContext());
    expect(ext.capabilities).toEqual({ streaming: true, pushNotifications: false, extendedAgentCard: true });
  });

  it('tck: the push flag follows the one switch, on both cards, once delivery exists', async () => {
    const server = serve('tck', true);
    expect((await servedCard(server)).capabilities).toEqual({
      streaming: true,
      pushNotifications: true,
      extendedAgentCard: true,
      extensions: [idempotency, delegation],
    });
    const ext = await server.handler.getExtendedAgentCard({}, localCallContext());
    expect(ext.capabilities.pushNotifications).toBe(true);
  });

  it.each(AGENT_NAMES.filter((n) => n !== 'tck'))(
    '%s: declares no push notifications even with the switch on (it has none to offer)',
    async (name) => {
      expect((await servedCard(serve(name, true))).capabilities).toEqual(EXPECTED[name]);
    },
  );
});
