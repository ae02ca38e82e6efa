/**
 * The tree demo agent: an inner node of a delegation tree (`a2a-once demo`). Each turn hands its text to every
 * child agent at once and completes when they all completed. How it reaches its children is the point of the demo,
 * and is chosen when the server starts:
 *
 * - `once` (the default): `ctx.delegate` with an `A2AClient` per child, so each child message is planned with its
 *   key as a durable step, resent with that key after a lost answer (the child replays its task), and reached
 *   again by a resumed turn (docs/semantics.md §4 "Delegation", ADR 0040). It is resumable.
 * - `naive`: a plain blocking `fetch` of SendMessage per child, resent as-is on a network error, as an SDK user
 *   without keys writes it (`naive-send.ts`). Every resend the child sees is a new task, and so is every subtree
 *   below it.
 *
 * Configured by environment, as the delegating agent is: `A2A_ONCE_TREE_CHILDREN` holds the children's base URLs,
 * comma-separated; `A2A_ONCE_TREE_MODE` is `once` or `naive`. With no children a node has nothing to delegate and
 * completes at once.
 */
import { A2AClient } from '../../client/index.js';
import type { Telemetry } from '../../telemetry/telemetry.js';
import type { AgentContext, AgentExecutor } from '../../server/agent-executor.js';
import type { AgentCardInit } from '../../server/card.js';
import { advertiseDelegation } from '../../server/delegation/index.js';
import type { DemoAgent, DemoAgentOptions } from './demo-agent.js';
import { naiveSend, plainMessage } from './naive-send.js';

/** The environment variable listing the children's base URLs (comma-separated). */
export const TREE_CHILDREN_ENV = 'A2A_ONCE_TREE_CHILDREN';
/** The environment variable choosing how a node reaches its children: `once` (default) or `naive`. */
export const TREE_MODE_ENV = 'A2A_ONCE_TREE_MODE';

/** How a tree node reaches its children. */
export type TreeMode = 'once' | 'naive';

/**
 * The client a node uses per child in `once` mode. More attempts than the default, with short waits: the demo's
 * links lose answers on purpose and a crashed child takes a moment to come back, and a keyed resend is safe.
 */
const CHILD_RETRY = { maxAttempts: 10, backoff: { initialMs: 50, maxMs: 500 } } as const;

/** The tree agent's card. */
export const treeCard: AgentCardInit = {
  name: 'a2a-once tree',
  description: 'Delegates each message to all its child agents at once and completes when they all did.',
  version: '1.0.0',
  capabilities: advertiseDelegation({ streaming: true }),
  skills: [
    {
      id: 'tree-delegate',
      name: 'Delegate to every child',
      description: 'Hands the text to each child agent and reports how many completed.',
      tags: ['delegation', 'demo'],
      examples: ['pay the suppliers'],
    },
  ],
};

/** Options of the tree agent: `children` and `mode` default to the environment variables. */
export interface TreeAgentOptions extends DemoAgentOptions {
  readonly children?: readonly string[];
  readonly mode?: TreeMode;
}

/** The children's URLs in `raw` (comma-separated; blanks ignored). @throws Error for a URL that is not http(s) */
export function parseTreeChildren(raw: string | undefined): string[] {
  const urls = (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const u of urls) {
    let url: URL;
    try {
      url = new URL(u);
    } catch {
      throw new Error(`${TREE_CHILDREN_ENV} holds something that is not a URL: ${JSON.stringify(u)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new Error(`${TREE_CHILDREN_ENV} must hold http or https URLs, not ${url.protocol}`);
  }
  return urls;
}

/** The mode in `raw`. @throws Error for anything but `once`, `naive` or nothing */
export function parseTreeMode(raw: string | undefined): TreeMode {
  if (raw === undefined || raw === '' || raw === 'once') return 'once';
  if (raw === 'naive') return 'naive';
  throw new Error(`${TREE_MODE_ENV} must be once or naive, not ${JSON.stringify(raw)}`);
}

/**
 * Creates the tree agent.
 * @throws Error when the children or the mode in the environment are malformed
 */
export function createTreeAgent(options: TreeAgentOptions = {}): DemoAgent {
  const children = options.children ?? parseTreeChildren(process.env[TREE_CHILDREN_ENV]);
  const mode = options.mode ?? parseTreeMode(process.env[TREE_MODE_ENV]);
  const executor = mode === 'naive' ? naiveExecutor(children) : onceExecutor(children, options.telemetry);
  return { executor, card: treeCard };
}

/** `once`: one `ctx.delegate` per child, named by the child's position so a resumed turn finds each again. */
function onceExecutor(children: readonly string[], telemetry: Telemetry | undefined): AgentExecutor {
  const clients = new Map<string, Promise<A2AClient>>();
  const clientOf = (url: string): Promise<A2AClient> => {
    let client = clients.get(url);
    if (client === undefined) {
      // A failed card fetch is not cached: the next turn (or the resumed one) tries again.
      client = A2AClient.fromCardUrl(url, { retry: CHILD_RETRY, ...(telemetry ? { telemetry } : {}) }).catch(
        (err: unknown) => {
          clients.delete(url);
          throw err;
        },
      );
      clients.set(url, client);
    }
    return client;
  };
  return {
    resumable: true,
    async execute(ctx: AgentContext): Promise<void> {
      await ctx.working(`delegating to ${children.length} children`);
      const handles = await Promise.all(
        children.map(async (url, i) =>
          ctx.delegate(await clientOf(url), ctx.userText, { name: `child-${i}`, pollMs: 100 }),
        ),
      );
      const outcomes = await Promise.all(handles.map((h) => h.outcome()));
      if (ctx.signal.aborted) return; // cancelled: the children were cancelled with it
      const notDone = outcomes.filter((o) => o.status !== 'completed');
      if (notDone.length > 0)
        return ctx.fail(
          `${notDone.length} of ${children.length} children did not complete: ${notDone[0]!.status}`,
        );
      await ctx.artifact({ name: 'children', parts: [{ text: `${children.length} children completed` }] });
      await ctx.complete();
    },
  };
}

/** `naive`: a blocking SendMessage per child, resent as-is when its answer is lost. Not resumable. */
function naiveExecutor(children: readonly string[]): AgentExecutor {
  return {
    async execute(ctx: AgentContext): Promise<void> {
      await ctx.working(`sending to ${children.length} children`);
      const tasks = await Promise.all(
        children.map(async (url) => (await naiveSend(url, plainMessage(ctx.userText), ctx.signal)).task),
      );
      if (ctx.signal.aborted) return;
      const notDone = tasks.filter((t) => t.status.state !== 'TASK_STATE_COMPLETED');
      if (notDone.length > 0)
        return ctx.fail(
          `${notDone.length} of ${children.length} children did not complete: ${notDone[0]!.status.state}`,
        );
      await ctx.artifact({ name: 'children', parts: [{ text: `${children.length} children completed` }] });
      await ctx.complete();
    },
  };
}
