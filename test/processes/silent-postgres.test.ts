/**
 * A silent database never hangs the server (docs/guides/stores-and-scale-out.md "When the database goes silent",
 * ADR 0063): a real `serve` process on PostgreSQL behind a loopback proxy, whose every pooled connection is then
 * stalled (open, answering nothing, as after a partition) while new connections still pass. Every keyed blocking
 * send made during the stall is answered within a bound (a task in its latest known state, or an error), the
 * server goes on serving new sends on new connections without the stalled ones healing, and after healing
 * every key's retry gets its task while no key's agent ran twice.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readEffects } from '../../src/cli/agents/index.js';
import { setKey } from '../../src/idempotency/index.js';
import type { Message } from '../../src/protocol/model.js';
import { postgresAvailable } from './postgres-server.js';
import { startProxiedServe, timedSend, type ProxiedServe } from './proxied-postgres.js';
import { cliBuilt } from './serve-process.js';
import { userMessage } from './wire.js';

const pgUp = cliBuilt ? await postgresAvailable() : false;

/** Longest a send may take during the stall: a few query timeouts (1.5 s each) of claim, commit and wait. */
const BOUND_MS = 15_000;

let running: ProxiedServe | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

const keyed = (name: string): Message =>
  setKey(userMessage(name), `silent-${name}-${Math.random().toString(36).slice(2, 12)}`);

describe.skipIf(!pgUp)('a silent PostgreSQL under a serve process', () => {
  it('answers every send within a bound, keeps serving on new connections, and runs no key twice', async () => {
    running = await startProxiedServe('a2a_silent', ['--lease', '2s']);
    const { proxy, serve, effectsLog } = running;
    // Warm: the pool opens connections, every one of which the stall then catches.
    const warm = await Promise.all(
      Array.from({ length: 20 }, (_, i) => timedSend(serve.url, keyed(`warm-${i}`), BOUND_MS)),
    );
    expect(warm.every((a) => a.task?.status.state === 'TASK_STATE_COMPLETED')).toBe(true);
    const pooled = proxy.openCount();
    expect(pooled).toBeGreaterThan(1);

    proxy.stall();
    const during = Array.from({ length: 10 }, (_, i) => keyed(`during-${i}`));
    const answers = await Promise.all(during.map((m) => timedSend(serve.url, m, 2 * BOUND_MS)));
    if (process.env.A2A_ONCE_PRINT)
      console.log(
        answers.map((a) => ({
          ms: Math.round(a.ms),
          state: a.task?.status.state,
          error: a.error?.message,
          un: a.unanswered,
        })),
      );
    for (const a of answers) {
      expect(a.unanswered, 'every send is answered').toBeUndefined();
      expect(a.ms).toBeLessThan(BOUND_MS);
    }
    // The stalled connections were given up on and destroyed, not kept in the pool.
    expect(proxy.connections().filter((c) => c.stalled && !c.open).length).toBeGreaterThan(0);

    // Still stalled, never healed: the server serves on new connections.
    const after = await timedSend(serve.url, keyed('after-stall'), BOUND_MS);
    expect(after.task?.status.state).toBe('TASK_STATE_COMPLETED');
    expect(after.ms).toBeLessThan(5_000);

    // Healed, every key of the stall retried: each gets a task, the one it was answered with if it was.
    proxy.heal();
    for (const [i, message] of during.entries()) {
      const retry = await timedSend(serve.url, message, BOUND_MS);
      expect(retry.task, `retry of during-${i}: ${JSON.stringify(retry)}`).toBeDefined();
      const first = answers[i]!.task;
      if (first) expect(retry.task!.id).toBe(first.id);
    }
    const runs = new Map<string, number>();
    for (const e of readEffects(effectsLog)) runs.set(e.messageId, (runs.get(e.messageId) ?? 0) + 1);
    expect([...runs.entries()].filter(([, n]) => n > 1)).toEqual([]);
  }, 120_000);
});
