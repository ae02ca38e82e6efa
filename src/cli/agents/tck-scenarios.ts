/**
 * What the TCK agent does for each messageId prefix the A2A conformance kit sends. The kit routes on prefixes
 * that nest (`tck-artifact-file` / `tck-artifact-file-url`), so the table is searched longest prefix first.
 *
 * The v1.0 kit names every message `tck-<case>-<session>`. The older v0.3 kit (docs/guides/v03-peers.md,
 * "Conformance") names them `test-<case>-message-id-<uuid>` and expects the task they start to stay open: it sends
 * follow-ups to it, reads its history and cancels it. So a `test-` message, or any id its generator made
 * (`<case>-message-id-<uuid>`), asks for input, and
 * `test-resubscribe-message-id` works for twice that kit's streaming timeout before completing.
 */
import type { Part } from '../../protocol/model.js';
import type { AgentContext } from '../../server/agent-executor.js';
import { abortableSleep } from './abortable-sleep.js';

/** One scenario: a messageId prefix and the turn it runs. */
export interface TckScenario {
  readonly prefix: string;
  readonly run: (ctx: AgentContext) => Promise<void>;
}

/** The text inside the TCK's file artifacts (sent base64 in a `raw` part). */
export const TCK_FILE_TEXT = 'File content from TCK';
/** How long `tck-delayed-complete` works before completing. */
export const TCK_DELAY_MS = 2000;
/** How long `test-resubscribe-message-id` works: twice the v0.3 kit's default streaming timeout (2 s). */
export const TCK_V03_RESUBSCRIBE_MS = 4000;

const filePart = (): Part => ({
  raw: Buffer.from(TCK_FILE_TEXT, 'utf8').toString('base64'),
  filename: 'output.txt',
  mediaType: 'text/plain',
});

/** Adds one artifact, then completes (the non-streaming `tck-artifact-*` cases). */
const artifactThenComplete =
  (part: Part) =>
  async (ctx: AgentContext): Promise<void> => {
    await ctx.artifact({ parts: [part] });
    await ctx.complete();
  };

/** WORKING, one artifact, COMPLETED: the streaming cases check exactly this event order. */
const workingArtifactComplete =
  (part: Part) =>
  async (ctx: AgentContext): Promise<void> => {
    await ctx.working();
    await ctx.artifact({ parts: [part] });
    await ctx.complete();
  };

async function chunked(ctx: AgentContext): Promise<void> {
  await ctx.working();
  // One artifactId for both chunks: the first `append` meets no artifact yet and adds it, the second extends it.
  const { artifactId } = await ctx.artifact(
    { name: 'chunked', parts: [{ text: 'chunk-1 ' }] },
    { append: true },
  );
  await ctx.artifact(
    { artifactId, name: 'chunked', parts: [{ text: 'chunk-2' }] },
    { append: true, lastChunk: true },
  );
  await ctx.complete();
}

/** WORKING for `ms`, then COMPLETED with `text`. */
const workFor =
  (ms: number, text: string) =>
  async (ctx: AgentContext): Promise<void> => {
    await ctx.working();
    // A cancel aborts the signal: return at once and write nothing (the task is already CANCELED).
    if (!(await abortableSleep(ms, ctx.signal))) return;
    await ctx.complete(text);
  };

/** The v0.3 kit's messages: the task waits for more input, so follow-ups, history and cancel have a task. */
async function stayOpen(ctx: AgentContext): Promise<void> {
  await ctx.requireInput('Input required: send a follow-up message or cancel');
}

/** How the v0.3 kit's id generator names messages: `<case>-message-id-<uuid>`, whatever the case's prefix. */
const V03_KIT_ID = /-message-id-/;

const SCENARIOS: readonly TckScenario[] = [
  { prefix: 'tck-complete-task', run: (ctx) => ctx.complete('Hello from TCK') },
  {
    prefix: 'tck-input-required',
    run: (ctx) => ctx.requireInput('Input required: send a follow-up message'),
  },
  { prefix: 'tck-auth-required', run: (ctx) => ctx.requireAuth('Authentication required') },
  { prefix: 'tck-message-response', run: (ctx) => ctx.reply('Direct message response') },
  { prefix: 'tck-reject-task', run: (ctx) => ctx.reject('Task rejected by the TCK agent') },
  { prefix: 'tck-artifact-text', run: artifactThenComplete({ text: 'Generated text content' }) },
  { prefix: 'tck-artifact-file', run: artifactThenComplete(filePart()) },
  {
    prefix: 'tck-artifact-file-url',
    run: artifactThenComplete({
      url: 'https://example.com/output.txt',
      filename: 'output.txt',
      mediaType: 'text/plain',
    }),
  },
  { prefix: 'tck-artifact-data', run: artifactThenComplete({ data: { key: 'value', count: 42 } }) },
  { prefix: 'tck-stream-001', run: workingArtifactComplete({ text: 'Stream hello from TCK' }) },
  { prefix: 'tck-stream-002', run: (ctx) => ctx.complete() },
  { prefix: 'tck-stream-003', run: workingArtifactComplete({ text: 'Stream task lifecycle' }) },
  { prefix: 'tck-stream-ordering-001', run: workingArtifactComplete({ text: 'Ordered output' }) },
  { prefix: 'tck-stream-artifact-text', run: workingArtifactComplete({ text: 'Streamed text content' }) },
  { prefix: 'tck-stream-artifact-file', run: workingArtifactComplete(filePart()) },
  { prefix: 'tck-stream-artifact-chunked', run: chunked },
  { prefix: 'tck-delayed-complete', run: workFor(TCK_DELAY_MS, 'Done after delay') },
  { prefix: 'test-resubscribe-message-id', run: workFor(TCK_V03_RESUBSCRIBE_MS, 'Done after resubscribe') },
  { prefix: 'test-', run: stayOpen },
];

/** The scenarios, longest prefix first. */
export const TCK_SCENARIOS: readonly TckScenario[] = [...SCENARIOS].sort(
  (a, b) => b.prefix.length - a.prefix.length,
);

/** The scenario a messageId selects, or undefined for the default behaviour. */
export function tckScenarioFor(messageId: string): TckScenario | undefined {
  const scenario = TCK_SCENARIOS.find((s) => messageId.startsWith(s.prefix));
  if (scenario !== undefined || !V03_KIT_ID.test(messageId)) return scenario;
  return { prefix: '', run: stayOpen };
}
