/**
 * Every card the CLI agents serve declares only what the server does: a capability whose behaviour is not built
 * is not advertised, since a peer plans on what the card says. `pushNotifications` is derived from the server
 * (ADR 0057): it is true when the server delivers, which it does unless the host turns push off (`push: false`,
 * or the TCK agent's card switched off for a "no push" run), and the push-config operations follow the card.
 * The exact capabilities object of each served card is asserted, so a flag added without its behaviour fails here.
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
function serve(name: AgentName, pushNotifications?: boolean, push?: false): A2AServer {
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
    ...(push === false ? { push } : {}),
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

/** What each agent's served public card declares: built behaviour only. The server delivers push by default. */
const EXPECTED: Record<AgentName, AgentCapabilities> = {
  echo: { streaming: true, pushNotifications: true, extensions: [idempotency, delegation] },
  // Its switch is off by default: the card says false, and that turns delivery off.
  tck: {
    streaming: true,
    pushNotifications: false,
    extendedAgentCard: true,
    extensions: [idempotency, delegation],
  },
  ask: { streaming: true, pushNotifications: true, extensions: [idempotency, delegation] },
  slow: { streaming: true, pushNotifications: true, extensions: [idempotency, delegation] },
  // Its own card declares delegation first; the server appends the key extension.
  delegating: { streaming: true, pushNotifications: true, extensions: [delegation, idempotency] },
  ledger: { streaming: true, pushNotifications: true, extensions: [idempotency, delegation] },
  tree: { streaming: true, pushNotifications: true, extensions: [delegation, idempotency] },
};

describe('the cards of the CLI agents', () => {
  it('cover every agent `serve --agent` accepts', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual([...AGENT_NAMES].sort());
  });

  it.each(AGENT_NAMES)('%s: the served card declares exactly the built capabilities', async (name) => {
    const card = await servedCard(serve(name));
    expect(card.capabilities).toEqual(EXPECTED[name]);
  });

  it.each(AGENT_NAMES)('%s: push-config operations are answered as the card says', async (name) => {
    const server = serve(name);
    // Thrown or rejected, the answer is the one the card announces: a lookup when it delivers, else a refusal.
    const call = Promise.resolve().then(() =>
      server.handler.listTaskPushNotificationConfigs({ taskId: 'any' }, localCallContext()),
    );
    const reason = EXPECTED[name].pushNotifications ? 'TASK_NOT_FOUND' : 'PUSH_NOTIFICATION_NOT_SUPPORTED';
    await expect(call).rejects.toMatchObject({ reason });
  });

  it.each(AGENT_NAMES)('%s: a host that turns push off gets a card saying so, and refusals', async (name) => {
    const server = serve(name, true, false);
    const card = await servedCard(server);
    expect(card.capabilities).toEqual({ ...EXPECTED[name], pushNotifications: false });
    const call = Promise.resolve().then(() =>
      server.handler.listTaskPushNotificationConfigs({ taskId: 'any' }, localCallContext()),
    );
    await expect(call).rejects.toMatchObject({ reason: 'PUSH_NOTIFICATION_NOT_SUPPORTED' });
    if (card.capabilities.extendedAgentCard) {
      const ext = await server.handler.getExtendedAgentCard({}, localCallContext());
      expect(ext.capabilities.pushNotifications).toBe(false);
    }
  });

  it('tck: the extended card declares the same flags as the public one (no push)', async () => {
    const server = serve('tck');
    const ext = await server.handler.getExtendedAgentCard({}, localCallContext());
    expect(ext.capabilities).toEqual({ streaming: true, pushNotifications: false, extendedAgentCard: true });
  });

  it('tck: the push flag follows its switch, on both cards', async () => {
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
    "%s: the switch is the TCK agent's; this card follows the server either way",
    async (name) => {
      expect((await servedCard(serve(name, true))).capabilities).toEqual(EXPECTED[name]);
    },
  );
});
