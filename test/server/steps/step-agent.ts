/**
 * The agent and send helpers of the step tests: an agent that runs a script per turn and keeps each turn's
 * context and how it ended, and sends that wait for a turn to start or for the task to settle.
 */
import type { AgentContext, AgentExecutor } from '../../../src/server/agent-executor.js';
import { localCallContext } from '../../../src/server/call-context.js';
import type { A2AServer } from '../../../src/server/create-server.js';
import type { Task } from '../../../src/protocol/model.js';
import { taskOf, until, userMessage } from '../leases/harness.js';

/** An agent running `script` for each turn, keeping each turn's context and how it ended. */
export class ScriptAgent implements AgentExecutor {
  readonly turns: AgentContext[] = [];
  readonly endings: unknown[] = [];

  constructor(
    readonly resumable: boolean,
    private readonly script: (ctx: AgentContext, turn: number) => Promise<void>,
  ) {}

  async execute(ctx: AgentContext): Promise<void> {
    const n = this.turns.push(ctx) - 1;
    try {
      await this.script(ctx, n);
      this.endings[n] = 'done';
    } catch (err) {
      this.endings[n] = err;
      throw err;
    }
  }
}

/** Sends (returnImmediately) and returns the task id once the agent's turn has started. */
export async function start(
  server: A2AServer,
  agent: ScriptAgent,
  text: string,
  extra = {},
): Promise<string> {
  const before = agent.turns.length;
  const res = await server.handler.sendMessage(
    { message: userMessage(text, extra), configuration: { returnImmediately: true } },
    localCallContext(),
  );
  await until(() => agent.turns.length > before);
  return taskOf(res).id;
}

/** Sends and waits for the task to settle. */
export async function sendAndWait(server: A2AServer, text: string): Promise<Task> {
  return taskOf(await server.handler.sendMessage({ message: userMessage(text) }, localCallContext()));
}

/** Catches what a step throws, for assertions. */
export async function caught(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
    return undefined;
  } catch (err) {
    return err;
  }
}
