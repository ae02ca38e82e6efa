/** A server that delivers push notifications to loopback receivers, for the push tests. */
import type { AgentExecutor } from '../../../src/server/agent-executor.js';
import { createA2AServer, type A2AServer } from '../../../src/server/create-server.js';
import type { A2AServerOptions } from '../../../src/server/options.js';
import type { PushDeliveryOptions } from '../../../src/server/push/push-options.js';
import { silentLogger } from '../../../src/server/observability/logger.js';

/** Texts that make the test agent wait until `release(text)` is called. */
const gates = new Map<string, () => void>();
const waiting = new Map<string, Promise<void>>();

/** Makes sends whose text is `name` wait at WORKING until `release(name)`. */
export function gate(name: string): void {
  waiting.set(
    name,
    new Promise<void>((ok) => {
      gates.set(name, ok);
    }),
  );
}

/** Lets the sends waiting on `name` go on. */
export function release(name: string): void {
  gates.get(name)?.();
}

/** WORKING, an artifact, COMPLETED: three events after the task's first; waits at WORKING on a gate. */
export const pushAgent: AgentExecutor = {
  async execute(ctx) {
    await ctx.working();
    await waiting.get(ctx.userText);
    await ctx.artifact({ name: 'out', parts: [{ text: `done: ${ctx.userText}` }] });
    await ctx.complete();
  },
};

/** A test secret in the Standard Webhooks form (32 bytes). */
export const TEST_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

/** Fast settings for tests: loopback allowed, short polls, short backoff. */
export const FAST_PUSH: PushDeliveryOptions = {
  allowPrivateTargets: true,
  signingSecret: TEST_SECRET,
  pollIntervalMs: 50,
  attemptTimeoutMs: 500,
  claimMs: 2_000,
  backoff: { baseMs: 20, maxMs: 100 },
};

/** A push-delivering server. */
export function pushServer(
  push: PushDeliveryOptions = FAST_PUSH,
  extra: Partial<A2AServerOptions> = {},
): A2AServer {
  return createA2AServer({
    agent: pushAgent,
    card: {
      name: 'push',
      description: 'delivers push',
      capabilities: { streaming: true, pushNotifications: true },
    },
    logger: silentLogger,
    retention: false,
    push,
    ...extra,
  });
}
