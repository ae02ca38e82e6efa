/**
 * The delegating demo agent (docs/semantics.md §4 "Delegation"): a parent that hands each turn to a child agent,
 * or, with no child configured, the leaf it delegates to.
 *
 * - Parent (the environment variable `A2A_ONCE_DELEGATE_TO` holds the child's base URL when the server starts):
 *   each turn delegates its text to the child with `delegate`, so the child's key and task id are durable steps,
 *   and ends as the child did: COMPLETED, FAILED with the child's status message, INPUT_REQUIRED with its
 *   question. A cancelled parent cancels its child. It is resumable: a resumed turn reaches the same child.
 * - Leaf: works for `delayMs`, then echoes the text, under the limits its message carries (ADR 0039): a passed
 *   deadline ends it FAILED with the budget message, and a lease its parent stopped renewing ends it CANCELED.
 *   Renewals are the parent's GetTask polls, recorded in the store by whichever replica answers them (ADR 0044).
 *
 * A parent asks its child for a lease of `CHILD_LEASE_MS` and renews it with its polls while it waits, so a child
 * whose parent died (and was not resumed by a replica within the lease) stops by itself.
 *
 * Configured by environment rather than by a flag because only this demo needs it; its tests start `serve`
 * processes with it set.
 */
import { A2AClient } from '../../client/index.js';
import type { AgentContext, AgentExecutor } from '../../server/agent-executor.js';
import type { AgentCardInit } from '../../server/card.js';
import { advertiseDelegation, delegate } from '../../server/delegation/index.js';
import type { Message } from '../../protocol/model.js';
import { abortableSleep } from './abortable-sleep.js';
import type { DemoAgent, DemoAgentOptions } from './demo-agent.js';
import { echoText } from './echo.js';

/** The environment variable naming the child agent's base URL. */
export const DELEGATE_TO_ENV = 'A2A_ONCE_DELEGATE_TO';

/**
 * The lease a parent gives its child: longer than a parent replica takes to resume a lost turn (a 2 s task lease
 * plus a recovery pass), so a resumed parent takes over the renewals before the child gives up.
 */
export const CHILD_LEASE_MS = 5_000;

/** The durable step that writes the effects-log line (one per task, whichever worker runs it). */
const EFFECT_STEP = 'effect';

/** The delegating agent's card. */
export const delegatingCard: AgentCardInit = {
  name: 'a2a-once delegating',
  description: 'Delegates each message to a child agent, once, and answers as the child did.',
  version: '1.0.0',
  capabilities: advertiseDelegation({ streaming: true }),
  skills: [
    {
      id: 'delegate',
      name: 'Delegate',
      description: 'Hands the text to a child agent and reports how the child ended.',
      tags: ['delegation', 'demo'],
      examples: ['summarise this'],
    },
  ],
};

/** Options of the delegating agent: `delegateTo` defaults to the environment variable. */
export interface DelegatingAgentOptions extends DemoAgentOptions {
  readonly delegateTo?: string;
}

/** Creates the delegating agent. */
export function createDelegatingAgent(options: DelegatingAgentOptions = {}): DemoAgent {
  const delegateTo = options.delegateTo ?? process.env[DELEGATE_TO_ENV];
  let client: Promise<A2AClient> | undefined;
  const childClient = () => {
    // A failed card fetch is not cached: the next turn (or the resumed one) tries again.
    client ??= A2AClient.fromCardUrl(
      delegateTo!,
      options.telemetry ? { telemetry: options.telemetry } : {},
    ).catch((err: unknown) => {
      client = undefined;
      throw err;
    });
    return client;
  };
  const executor: AgentExecutor = {
    resumable: true,
    async execute(ctx: AgentContext): Promise<void> {
      await ctx.step(EFFECT_STEP, (key) => options.effectsLog?.record(ctx, key));
      if (delegateTo === undefined) return leafTurn(ctx, options.delayMs ?? 500);
      return parentTurn(ctx, await childClient());
    },
  };
  return { executor, card: delegatingCard };
}

async function parentTurn(ctx: AgentContext, client: A2AClient): Promise<void> {
  const handle = await delegate(ctx, client, ctx.userText, { pollMs: 100, leaseMs: CHILD_LEASE_MS });
  const outcome = await handle.outcome();
  if (ctx.signal.aborted) return; // cancelled: the child was cancelled with it
  const said = textOf(outcome.task?.status.message ?? outcome.message);
  switch (outcome.status) {
    case 'completed':
      await ctx.artifact({ name: 'child', parts: [{ text: `child ${handle.taskId ?? '-'} completed` }] });
      return ctx.complete();
    case 'input-required':
      return ctx.requireInput(said || 'the child needs input');
    case 'auth-required':
      // Surfaced upstream (A2A §7.6): the parent's caller is the one who can get the child its credential.
      return ctx.requireAuth(said || 'the child needs authorization');
    case 'lost':
    case 'detached':
      return ctx.fail(`child ${outcome.status}: ${outcome.reason ?? ''}`);
    case 'failed':
    case 'rejected':
    case 'canceled':
      return ctx.fail(`child ${outcome.status}: ${said}`);
  }
}

async function leafTurn(ctx: AgentContext, delayMs: number): Promise<void> {
  // The runner enforces a delegating parent's budget and lease on every turn (ADR 0039): when one runs out it
  // ends the task and aborts this signal, and the sleep stops.
  if (!(await abortableSleep(delayMs, ctx.signal))) return;
  await ctx.artifact({ name: 'echo', parts: [{ text: echoText(ctx.userText) }] });
  await ctx.complete();
}

function textOf(m: Message | undefined): string {
  return (m?.parts ?? []).map((p) => ('text' in p ? p.text : '')).join('');
}
