/**
 * A v0.3 keyed send racing a v1.0 send of the same key on two servers sharing one SQLite store gives one task,
 * and the agent runs once (docs/guides/v03-peers.md, ADR 0098).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { IDEMPOTENCY_METADATA_KEY } from '../../../src/idempotency/index.js';
import { createA2AServer } from '../../../src/server/index.js';
import { serveNode } from '../../../src/server/node/index.js';
import { SqliteTaskStore } from '../../../src/store/sqlite/index.js';
import { closeNode } from '../../helpers/close-node.js';

it('a v0.3 and a v1.0 send of one key on two replicas are one task', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-once-v03-'));
  const path = join(dir, 'tasks.db');
  let runs = 0;
  const agent = {
    execute: async (ctx: { complete: (t: string) => Promise<void> }) => {
      runs++;
      await new Promise((r) => setTimeout(r, 30));
      await ctx.complete('done');
    },
  };
  const card = { name: 'echo', description: 'Echoes' };
  const stores = [new SqliteTaskStore({ path }), new SqliteTaskStore({ path })];
  await stores[0]!.migrate();
  const servers = stores.map((store) => createA2AServer({ agent: agent, card, store, compat: ['0.3'] }));
  const handles = await Promise.all(servers.map((s) => serveNode(s.fetch, { host: '127.0.0.1', port: 0 })));
  try {
    const key = `race-key-${Date.now()}-0123456789`;
    const post = (url: string, method: string, params: unknown) =>
      fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      }).then((r) => r.json() as Promise<{ result?: Record<string, unknown>; error?: unknown }>);
    const metadata = { [IDEMPOTENCY_METADATA_KEY]: key };
    const [a, b] = await Promise.all([
      post(handles[0]!.url, 'message/send', {
        message: {
          kind: 'message',
          messageId: 'race-m',
          role: 'user',
          parts: [{ kind: 'text', text: 'go' }],
          metadata,
        },
      }),
      post(handles[1]!.url, 'SendMessage', {
        message: { messageId: 'race-m', role: 'ROLE_USER', parts: [{ text: 'go' }], metadata },
      }),
    ]);
    expect(a.error).toBeUndefined();
    expect(b.error).toBeUndefined();
    expect(a.result?.id).toBe((b.result?.task as { id: string }).id);
    expect(runs).toBe(1);
  } finally {
    await Promise.all(handles.map((h) => closeNode(h)));
    await Promise.all(servers.map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  }
});
