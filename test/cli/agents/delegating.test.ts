/**
 * The delegating demo agent answers as its child did: a child that asks for authorization (A2A §7.6) makes the
 * parent ask its own caller, with the child's words, rather than taking it for a request for input. The child is
 * a real a2a-once server over HTTP (it asks for authorization on "auth" text, for input on "ask" text); the
 * parent reaches it through the client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDelegatingAgent } from '../../../src/cli/agents/index.js';
import { createA2AServer } from '../../../src/server/create-server.js';
import { serveNode } from '../../../src/server/node/index.js';
import type { NodeServerHandle } from '../../../src/server/node/index.js';
import { MemoryTaskStore } from '../../../src/store/memory/index.js';
import { handlerFor, sendForTask, userMessage } from './harness.js';
import { closeNode } from '../../helpers/close-node.js';

let child: NodeServerHandle;
let closeChild: () => Promise<void>;

beforeAll(async () => {
  const server = createA2AServer({
    agent: {
      async execute(ctx) {
        if (ctx.userText.startsWith('auth')) return ctx.requireAuth('sign in to the ledger first');
        if (ctx.userText.startsWith('ask')) return ctx.requireInput('which region?');
        return ctx.complete('done');
      },
    },
    card: { name: 'child', description: 'asks back', capabilities: { streaming: true } },
    store: new MemoryTaskStore(),
  });
  child = await serveNode(server.fetch, { host: '127.0.0.1', port: 0 });
  closeChild = () => server.close();
});

afterAll(async () => {
  if (child) await closeNode(child);
  await closeChild?.();
});

describe('the delegating agent', () => {
  it('surfaces a child in AUTH_REQUIRED upstream as AUTH_REQUIRED, with the child message', async () => {
    const parent = handlerFor(createDelegatingAgent({ delegateTo: child.url, delayMs: 20 }));
    const task = await sendForTask(parent, userMessage(`d-${Date.now()}`, 'auth please'));
    expect(task.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    const said = task.status.message?.parts.map((p) => ('text' in p ? p.text : '')).join('');
    expect(said).toBe('sign in to the ledger first');
  });

  it('surfaces a child in INPUT_REQUIRED as INPUT_REQUIRED', async () => {
    const parent = handlerFor(createDelegatingAgent({ delegateTo: child.url, delayMs: 20 }));
    const task = await sendForTask(parent, userMessage(`d-${Date.now()}-i`, 'ask please'));
    expect(task.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
  });
});
