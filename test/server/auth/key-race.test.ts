/**
 * Two principals race the same key text in one tenant, many sends each, over real HTTP (docs/semantics.md §1
 * "Scope"): each principal gets one task of its own, every send of a principal answers with that task, and the
 * agent runs once per principal, on the memory and SQLite stores.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { bearerTokens } from '../../../src/server/index.js';
import { openStore } from '../../../src/store/open-store.js';
import { bearer, call, countedAgent, message, startAuthServer } from './auth-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-key-race-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(['memory', 'sqlite'])('on the %s store', (kind) => {
  it('alice and bob, 24 sends each with one key text, interleaved: one task and one run per principal', async () => {
    const store = await openStore(kind === 'memory' ? 'memory' : `sqlite:${join(dir, `${randomUUID()}.db`)}`);
    await (store as { migrate?: () => Promise<unknown> }).migrate?.();
    const agent = countedAgent();
    const s = await startAuthServer(
      {
        authenticate: bearerTokens({
          tokens: [
            { token: 'alice-race-token-01', principal: 'alice', tenants: ['acme'] },
            { token: 'bob-race-token-0002', principal: 'bob', tenants: ['acme'] },
          ],
        }),
      },
      { store, agent: agent.agent },
    );
    try {
      const key = `race-key-${randomUUID()}`;
      // One message per principal (a retry resends the same message), sent many times at once.
      const sent = { alice: message('same text', {}, key), bob: message('same text', {}, key) };
      const sends = Array.from({ length: 48 }, (_, i) => {
        const who = i % 2 === 0 ? 'alice' : 'bob';
        const token = who === 'alice' ? 'alice-race-token-01' : 'bob-race-token-0002';
        return call(
          s.url,
          i % 4 < 2 ? 'jsonrpc' : 'rest',
          'SendMessage',
          { tenant: 'acme', message: sent[who] },
          bearer(token),
        ).then((a) => ({ who, a }));
      });
      const answers = await Promise.all(sends);
      const ids = { alice: new Set<string>(), bob: new Set<string>() };
      for (const { who, a } of answers) {
        expect(a.status, a.text).toBe(200);
        const j = a.json as { result?: { task: { id: string } }; task?: { id: string } };
        ids[who as 'alice' | 'bob'].add((j.result ?? j).task!.id);
        expect(a.text).toContain(`done for ${who}`);
      }
      expect(ids.alice.size).toBe(1);
      expect(ids.bob.size).toBe(1);
      expect([...ids.alice][0]).not.toBe([...ids.bob][0]);
      expect(agent.runs.get('alice')).toBe(1);
      expect(agent.runs.get('bob')).toBe(1);
    } finally {
      await s.close();
    }
  });
});
