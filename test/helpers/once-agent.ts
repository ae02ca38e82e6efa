/**
 * An a2a-once echo agent served in-process on 127.0.0.1 (any free port, memory store), with an effects log that
 * counts how many times the agent ran: what the CLI and client tests send to when they need a peer that honours
 * idempotency keys. Its temporary folder goes with `close()`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countEffects, createAgent, EffectsLog } from '../../src/cli/agents/index.js';
import { createA2AServer } from '../../src/server/create-server.js';
import { serveNode } from '../../src/server/node/index.js';
import { MemoryTaskStore } from '../../src/store/memory/index.js';
import { closeNode } from './close-node.js';

/** A running agent. */
export interface OnceAgent {
  /** Base URL (its card is at `/.well-known/agent-card.json`). */
  readonly url: string;
  /** How many times the agent has run. */
  runs(): number;
  close(): Promise<void>;
}

/** Starts the echo agent. */
export async function startOnceAgent(): Promise<OnceAgent> {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-once-agent-'));
  const log = join(dir, 'effects.jsonl');
  const agent = createAgent('echo', { effectsLog: new EffectsLog(log) });
  const server = createA2AServer({ agent: agent.executor, card: agent.card, store: new MemoryTaskStore() });
  const http = await serveNode(server.fetch, { host: '127.0.0.1', port: 0 });
  return {
    url: http.url,
    runs: () => countEffects(log),
    async close() {
      await closeNode(http);
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
