/**
 * A compat server and the `@a2a-js/sdk` v0.3 transports for the v0.3 peer tests (docs/guides/v03-peers.md):
 * an agent that answers "echo", waits until cancelled on "wait", and goes WORKING then waits on "slow" until
 * released; a push-delivering server (loopback webhooks allowed, as the push tests do); a2a-js message builders.
 */
import { afterAll, beforeAll } from 'vitest';
import type { AgentExecutor } from '../../../src/server/agent-executor.js';
import { createA2AServer } from '../../../src/server/index.js';
import { serveNode } from '../../../src/server/node/index.js';
import { silentLogger } from '../../../src/server/observability/logger.js';
import { FAST_PUSH } from '../push/push-server.js';
import { closeNode } from '../../helpers/close-node.js';

/** How many times the agent ran. */
export const runs = { count: 0 };

let releaseSlow: () => void = () => undefined;
let slow = new Promise<void>((ok) => (releaseSlow = ok));

/** Lets the "slow" sends finish (and arms the next). */
export function release(): void {
  releaseSlow();
  slow = new Promise<void>((ok) => (releaseSlow = ok));
}

const agent: AgentExecutor = {
  async execute(ctx) {
    runs.count++;
    if (ctx.userText === 'wait') {
      await ctx.working();
      await new Promise<void>((ok) => ctx.signal.addEventListener('abort', () => ok(), { once: true }));
      return;
    }
    if (ctx.userText === 'slow') {
      await ctx.working();
      await slow;
    }
    await ctx.complete(`echo: ${ctx.userText}`);
  },
};

type Handle = Awaited<ReturnType<typeof serveNode>>;

/** Starts a compat server (push delivering to loopback) for the file; `handle.url` once `beforeAll` ran. */
export function compatServer(): { readonly url: string } {
  let h: Handle | undefined;
  beforeAll(async () => {
    const server = createA2AServer({
      agent,
      card: {
        name: 'v03-peer',
        description: 'Serves v0.3 peers',
        capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
      },
      extendedCard: {
        name: 'v03-peer',
        description: 'Serves v0.3 peers (extended)',
        supportedInterfaces: [],
        version: '1.0.0',
        capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [{ id: 'secret', name: 'Secret', description: 'Only for callers', tags: ['x'] }],
      },
      compat: ['0.3'],
      push: FAST_PUSH,
      logger: silentLogger,
      retention: false,
    });
    h = await serveNode(server.fetch, { host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    if (h) await closeNode(h);
  });
  return {
    get url() {
      return h!.url;
    },
  };
}

/** An `@a2a-js/sdk` (v1.0 types) user message, as the v0.3 transports take it. */
export function jsMessage(messageId: string, text: string, metadata?: Record<string, unknown>) {
  return {
    messageId,
    contextId: '',
    taskId: '',
    role: 1,
    parts: [{ content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: '' }],
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** A send request for the a2a-js transports. */
export function jsSend(
  messageId: string,
  text: string,
  opts: { returnImmediately?: boolean; metadata?: Record<string, unknown> } = {},
): never {
  return {
    tenant: '',
    message: jsMessage(messageId, text, opts.metadata),
    configuration:
      opts.returnImmediately === undefined
        ? undefined
        : {
            acceptedOutputModes: [],
            historyLength: undefined,
            taskPushNotificationConfig: undefined,
            returnImmediately: opts.returnImmediately,
          },
    metadata: undefined,
  } as never;
}

/** The task of an a2a-js send answer (`payload` oneof, or the bare task). */
export function taskOf(sent: unknown): { id: string; status: { state: number } } {
  const s = sent as { payload?: { $case: string; value: unknown }; id?: string };
  return (s.payload?.value ?? s) as { id: string; status: { state: number } };
}

/** a2a-js v1.0 task states. */
export const STATE = { SUBMITTED: 1, WORKING: 2, COMPLETED: 3, CANCELED: 5 } as const;

/** Polls until `pred` holds, or fails after `ms`. */
export async function until(pred: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await pred())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}
