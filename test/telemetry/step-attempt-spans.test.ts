/**
 * A step's attempts in the trace (ADR 0120), with OpenTelemetry registered: a step with a retry policy gets a span
 * per attempt under its step span, each with its number and how it ended, and the step span says the last attempt
 * and `recorded`; a plain step keeps a single span, marked attempt 1.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTelemetry } from '../../src/otel/index.js';
import type { AgentContext } from '../../src/server/agent-executor.js';
import { localCallContext } from '../../src/server/call-context.js';
import { createA2AServer } from '../../src/server/create-server.js';
import { silentLogger } from '../../src/server/observability/logger.js';
import { parentOf, registerOtel, type RegisteredOtel } from './otel-harness.js';

let otel: RegisteredOtel;
beforeAll(() => {
  otel = registerOtel();
});
afterAll(async () => {
  await otel.unregister();
});

describe('step attempt spans', () => {
  it('a span per attempt of a retried step, under its step span; a plain step has none', async () => {
    const server = createA2AServer({
      card: { name: 'steps', description: 'retries a step' },
      retention: false,
      logger: silentLogger,
      telemetry: openTelemetry(),
      agent: {
        async execute(ctx: AgentContext) {
          await ctx.step(
            'flaky',
            (_key, { attempt }) => {
              if (attempt === 1) throw new Error('outage');
              return attempt;
            },
            { retry: { maxAttempts: 3, initialDelayMs: 0 } },
          );
          await ctx.step('plain', () => 'once');
          await ctx.complete('done');
        },
      },
    });
    try {
      await server.handler.sendMessage(
        { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: 'go' }] } },
        localCallContext(),
      );
      const spans = otel.spans();
      const step = (name: string) =>
        spans.find((s) => s.name === 'a2a_once.step' && s.attributes['a2a_once.step.name'] === name)!;
      const flaky = step('flaky');
      expect(flaky.attributes).toMatchObject({ 'a2a_once.step.outcome': 'recorded', 'a2a_once.attempt': 2 });
      const attempts = spans
        .filter((s) => s.name === 'a2a_once.step.attempt')
        .sort((a, b) => Number(a.attributes['a2a_once.attempt']) - Number(b.attributes['a2a_once.attempt']));
      expect(
        attempts.map((s) => [s.attributes['a2a_once.attempt'], s.attributes['a2a_once.step.outcome']]),
      ).toEqual([
        [1, 'threw'],
        [2, 'returned'],
      ]);
      for (const a of attempts) {
        expect(parentOf(a)).toBe(flaky.spanContext().spanId);
        expect(a.attributes['a2a_once.step.semantics']).toBe('at-least-once');
      }
      expect(attempts[0]!.attributes['error.type']).toBe('Error');
      const plain = step('plain');
      expect(plain.attributes).toMatchObject({ 'a2a_once.step.outcome': 'recorded', 'a2a_once.attempt': 1 });
      expect(spans.filter((s) => parentOf(s) === plain.spanContext().spanId)).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
