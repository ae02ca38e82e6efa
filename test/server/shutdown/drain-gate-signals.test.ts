/**
 * The drain gate links each call's signal to its own end signal (docs/guides/production.md "Shutting down",
 * ADR 0088) without `AbortSignal.any` (tens of microseconds a call on Node 20, and every gRPC call carries a
 * signal), and without leaving anything on that long-lived signal once the call is over: unary sends, streams
 * read to the end, streams left after one event and streams never read whose caller went away all leave it as
 * they found it, no listener and no dependant signal; and the end still ends a stream in progress.
 */
import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { createEchoAgent } from '../../../src/cli/agents/echo.js';
import { localCallContext } from '../../../src/server/call-context.js';
import { createA2AServer, type A2AServer } from '../../../src/server/create-server.js';
import { DrainGate } from '../../../src/server/http/probes/drain-gate.js';
import { silentLogger } from '../../../src/server/observability/logger.js';
import type { RequestHandler } from '../../../src/server/request-handler.js';

let server: A2AServer | undefined;
afterEach(async () => {
  await server?.close({ graceMs: 0 });
  server = undefined;
});

function gated(): { gate: DrainGate; handler: RequestHandler } {
  const agent = createEchoAgent();
  server = createA2AServer({ agent: agent.executor, card: agent.card, logger: silentLogger });
  const gate = new DrainGate();
  return { gate, handler: gate.guard(server.handler) };
}

/** What the end signal holds on to: its listeners and the dependants `AbortSignal.any` registers on it. */
function heldBy(signal: AbortSignal): { listeners: number; dependants: number } {
  const key = Object.getOwnPropertySymbols(signal).find((s) => s.description === 'kDependantSignals');
  const dependants = key === undefined ? undefined : (signal as unknown as Record<symbol, unknown>)[key];
  return {
    listeners: getEventListeners(signal, 'abort').length,
    dependants: dependants instanceof Set ? dependants.size : 0,
  };
}

const message = (n: number) => ({
  message: { messageId: `m-${n}-${Math.random()}`, role: 'ROLE_USER' as const, parts: [{ text: `hi ${n}` }] },
});
const withSignal = () => {
  const ctl = new AbortController();
  return { ctl, ctx: localCallContext({ signal: ctl.signal }) };
};

describe('the drain gate and its end signal', () => {
  it('holds nothing after unary sends and streams, however they end', async () => {
    const { gate, handler } = gated();
    for (let i = 0; i < 100; i++) {
      const answer = await handler.sendMessage(message(i), withSignal().ctx);
      expect('task' in answer && answer.task.status.state).toBe('TASK_STATE_COMPLETED');
    }
    for (let i = 0; i < 20; i++) {
      const events = [];
      for await (const e of await handler.sendStreamingMessage(message(100 + i), withSignal().ctx))
        events.push(e);
      expect(events.length).toBeGreaterThan(1);
    }
    for (let i = 0; i < 20; i++) {
      for await (const e of await handler.sendStreamingMessage(message(200 + i), withSignal().ctx)) {
        expect(e).toBeDefined();
        break; // the consumer leaves after one event
      }
    }
    for (let i = 0; i < 20; i++) {
      const { ctl, ctx } = withSignal();
      await handler.sendStreamingMessage(message(300 + i), ctx); // never read
      ctl.abort(); // the caller went away
    }
    expect(heldBy(gate.endSignal)).toEqual({ listeners: 0, dependants: 0 });
  });

  it('still ends a stream in progress when the grace ends', async () => {
    const { gate, handler } = gated();
    const { ctx } = withSignal();
    const task = await handler.sendMessage(
      { ...message(1), configuration: { returnImmediately: true } },
      localCallContext(),
    );
    const id = 'task' in task ? task.task.id : '';
    const stream = await handler.subscribeToTask({ id }, ctx).catch(() => undefined);
    if (stream === undefined) return; // the echo finished first: nothing left to subscribe to
    const reading = (async () => {
      const seen = [];
      for await (const e of stream) seen.push(e);
      return seen;
    })();
    await gate.end(0);
    await expect(reading).resolves.toBeDefined();
    expect(heldBy(gate.endSignal).listeners).toBe(0);
  });
});
