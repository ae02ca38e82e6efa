/**
 * docs/semantics.md §2 "the store cannot honour keys": the agent card advertises the idempotency
 * extension (with `params` giving the key TTL) exactly when the configured store honours keys; a store that does
 * not is refused for keyed sends (-32004 / 400, nothing runs) and serves unkeyed ones; an operator's own entry for
 * the URI is kept as written.
 */
import { DELEGATION_EXTENSION_URI } from '../../../src/server/delegation/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_EXTENSION_URI, IDEMPOTENCY_METADATA_KEY } from '../../../src/idempotency/index.js';
import type { AgentCard, AgentExtension } from '../../../src/protocol/agent-card.js';
import {
  BINDINGS,
  NoKeysStore,
  REFUSALS,
  TEST_CARD,
  errorOf,
  expectedShape,
  keyedMessage,
  makeServer,
  openStream,
  refusalShape,
  send,
  taskOf,
  userMessage,
  type Binding,
  type Endpoint,
  type TestServer,
} from './helpers.js';

async function fetchCard(ep: Endpoint): Promise<AgentCard> {
  const res = await ep.fetch(new Request(`${ep.base}/.well-known/agent-card.json`));
  expect(res.status).toBe(200);
  return (await res.json()) as AgentCard;
}

function idempotencyEntries(card: AgentCard): AgentExtension[] {
  return (card.capabilities.extensions ?? []).filter((e) => e.uri === IDEMPOTENCY_EXTENSION_URI);
}

const servers: TestServer[] = [];
function server(o: Parameters<typeof makeServer>[0] = {}): TestServer {
  const s = makeServer(o);
  servers.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('the card advertises the extension exactly when the store honours keys', () => {
  it('a store with a key index: one entry, not required, params give the key TTL (default 24 h)', async () => {
    const t = server();
    const entries = idempotencyEntries(await fetchCard(t.ep));
    expect(entries).toHaveLength(1);
    expect(entries[0]?.required ?? false).toBe(false);
    expect(entries[0]?.params).toMatchObject({ keyTtlSeconds: 86_400 });
  });

  it('params follow the configured key TTL', async () => {
    const t = server({ keyTtlMs: 90_000 });
    const entries = idempotencyEntries(await fetchCard(t.ep));
    expect(entries[0]?.params).toMatchObject({ keyTtlSeconds: 90 });
  });

  it('a store without a key index: no entry on the card (public card and handler card alike)', async () => {
    const t = server({ wrap: (mem) => new NoKeysStore(mem) });
    expect(t.store.supportsIdempotency).toBe(false);
    expect(t.store.capabilities.idempotency).toBe(false);
    expect(idempotencyEntries(await fetchCard(t.ep))).toEqual([]);
    expect(idempotencyEntries(t.server.handler.agentCard)).toEqual([]);
  });

  it('the same card init, two stores: the advertisement follows the store, not the configuration', async () => {
    const card = {
      ...TEST_CARD,
      capabilities: { streaming: true, extensions: [{ uri: 'https://example.com/x' }] },
    };
    const withKeys = server({ card });
    const withoutKeys = server({ card, wrap: (mem) => new NoKeysStore(mem) });
    expect(idempotencyEntries(await fetchCard(withKeys.ep))).toHaveLength(1);
    expect(idempotencyEntries(await fetchCard(withoutKeys.ep))).toHaveLength(0);
    // The operator's other extensions are kept in both.
    for (const t of [withKeys, withoutKeys]) {
      expect((await fetchCard(t.ep)).capabilities.extensions?.map((e) => e.uri)).toContain(
        'https://example.com/x',
      );
    }
  });

  it('an operator’s own entry for the URI is kept as written (not replaced, not duplicated)', async () => {
    const own: AgentExtension = {
      uri: IDEMPOTENCY_EXTENSION_URI,
      description: 'our own words',
      required: false,
      params: { keyTtlSeconds: 5, note: 'operator-defined' },
    };
    const other: AgentExtension = { uri: 'https://example.com/other', description: 'other' };
    const t = server({ card: { ...TEST_CARD, capabilities: { streaming: true, extensions: [other, own] } } });
    const card = await fetchCard(t.ep);
    // The server adds only its delegation extension (ADR 0039), after the operator's own entries.
    expect(card.capabilities.extensions?.filter((e) => e.uri !== DELEGATION_EXTENSION_URI)).toEqual([
      other,
      own,
    ]);
    // ...and keys are still honoured.
    const m = keyedMessage('hello');
    const a = taskOf(await send(t.ep, 'rest', m));
    expect(taskOf(await send(t.ep, 'rest', m)).id).toBe(a.id);
    expect(t.agent.executions).toHaveLength(1);
  });
});

describe.each(BINDINGS)('a store that cannot honour keys, over %s', (binding: Binding) => {
  it('refuses a keyed send with -32004 / 400 and runs nothing', async () => {
    const t = server({ wrap: (mem) => new NoKeysStore(mem) });
    const e = errorOf(await send(t.ep, binding, keyedMessage('hello')));
    expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.unsupported));
    expect(t.agent.executions).toHaveLength(0);
    expect(t.memory.taskCount).toBe(0);
  });

  it('refuses a keyed streaming send the same way, before any event', async () => {
    const t = server({ wrap: (mem) => new NoKeysStore(mem) });
    const e = errorOf(await openStream(t.ep, binding, keyedMessage('hello')));
    expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.unsupported));
    expect(t.agent.executions).toHaveLength(0);
  });

  it('refuses a key without the URI too (a key is a key, declared or not)', async () => {
    const t = server({ wrap: (mem) => new NoKeysStore(mem) });
    const m = {
      ...userMessage('hello'),
      metadata: { [IDEMPOTENCY_METADATA_KEY]: 'a-perfectly-good-key-1234' },
    };
    expect(refusalShape(errorOf(await send(t.ep, binding, m)))).toEqual(
      expectedShape(binding, REFUSALS.unsupported),
    );
    expect(t.agent.executions).toHaveLength(0);
  });

  it('refuses a keyed continuation as well', async () => {
    const t = server({ wrap: (mem) => new NoKeysStore(mem) });
    const first = taskOf(await send(t.ep, binding, userMessage('input please')));
    const e = errorOf(await send(t.ep, binding, keyedMessage('answer', undefined, { taskId: first.id })));
    expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.unsupported));
    expect(t.agent.executions).toHaveLength(1);
  });

  it('serves unkeyed sends (blocking and streaming), each running once', async () => {
    const t = server({ wrap: (mem) => new NoKeysStore(mem) });
    const task = taskOf(await send(t.ep, binding, userMessage('hello')));
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    const open = await openStream(t.ep, binding, userMessage('hello again'));
    if (open.kind !== 'stream') throw new Error(JSON.stringify(open.error));
    const frames = await open.stream.rest();
    expect(frames.length).toBeGreaterThan(0);
    expect(t.agent.executions).toHaveLength(2);
  });

  it('does not activate the extension when a client asks for it', async () => {
    const t = server({ wrap: (mem) => new NoKeysStore(mem) });
    const a = await send(t.ep, binding, userMessage('hello'), {
      headers: { 'A2A-Extensions': IDEMPOTENCY_EXTENSION_URI },
    });
    taskOf(a);
    expect(a.headers.get('A2A-Extensions') ?? '').not.toContain(IDEMPOTENCY_EXTENSION_URI);
    const withKeys = server();
    const b = await send(withKeys.ep, binding, userMessage('hello'), {
      headers: { 'A2A-Extensions': IDEMPOTENCY_EXTENSION_URI },
    });
    expect(b.headers.get('A2A-Extensions') ?? '').toContain(IDEMPOTENCY_EXTENSION_URI);
  });
});
