/**
 * The slow agent: an echo that takes its time, reporting progress on the way. It exists to exercise cancel,
 * streams that stay open, retries that arrive while a task is still WORKING, and recovery: a cancel aborts its
 * signal, and it stops at once and writes nothing more (the server has already made the task CANCELED).
 *
 * It declares itself resumable (ADR 0037): a turn whose process died is run again by whichever server recovers
 * it. Its one side effect, the effects-log line, is a durable step (ADR 0038) carrying the step's side-effect key,
 * so a resumed turn does not write it again: kill -9 a `serve --agent slow` mid-task, start it again, and the
 * task completes with one line in the effects log.
 */
import type { AgentContext, AgentExecutor } from '../../server/agent-executor.js';
import type { AgentCardInit } from '../../server/card.js';
import { abortableSleep } from './abortable-sleep.js';
import type { DemoAgent, DemoAgentOptions } from './demo-agent.js';
import { echoText } from './echo.js';

/** How long the slow agent works by default. */
export const SLOW_DEFAULT_DELAY_MS = 500;
/** Progress steps: WORKING "progress 0%", then 25 %, 50 %, 75 %, then the artifact and COMPLETED. */
const STEPS = 4;
/** The name of the durable step that makes the agent's side effect. */
export const SLOW_EFFECT_STEP = 'effect';

/** The slow agent's card. */
export const slowCard: AgentCardInit = {
  name: 'a2a-once slow',
  description: 'Echoes each message back after a delay, with progress updates; cancelable.',
  version: '1.0.0',
  capabilities: { streaming: true },
  skills: [
    {
      id: 'slow-echo',
      name: 'Slow echo',
      description: 'Works for a while, reporting progress, then echoes the text it was sent.',
      tags: ['echo', 'slow', 'cancel', 'demo'],
      examples: ['take your time'],
    },
  ],
};

/** The progress message of step `step` of `STEPS`. */
export function progressText(step: number): string {
  return `progress ${Math.round((step * 100) / STEPS)}%`;
}

/** Creates the slow agent; `delayMs` (default 500) is the whole working time. */
export function createSlowAgent(options: DemoAgentOptions = {}): DemoAgent {
  const delayMs = options.delayMs ?? SLOW_DEFAULT_DELAY_MS;
  const executor: AgentExecutor = {
    resumable: true,
    async execute(ctx: AgentContext): Promise<void> {
      // Once per task, whichever worker runs it: a resumed turn gets the recorded result instead.
      await ctx.step(SLOW_EFFECT_STEP, (key) => options.effectsLog?.record(ctx, key));
      await ctx.working(progressText(0));
      for (let step = 1; step <= STEPS; step++) {
        if (!(await abortableSleep(delayMs / STEPS, ctx.signal))) return;
        if (step < STEPS) await ctx.working(progressText(step));
      }
      await ctx.artifact({ name: 'echo', parts: [{ text: echoText(ctx.userText) }] });
      await ctx.complete();
    },
  };
  return { executor, card: slowCard };
}
