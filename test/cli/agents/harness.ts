/**
 * Shared helpers for the demo-agent tests: a real request handler over an in-memory store, user messages,
 * stream collection and artifact text extraction.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type {
  Artifact,
  Message,
  Part,
  SendMessageResponse,
  StreamResponse,
  Task,
} from '../../../src/protocol/model.js';
import { A2ARequestHandler } from '../../../src/server/a2a-request-handler.js';
import type { DemoAgent } from '../../../src/cli/agents/index.js';
import { localCallContext } from '../../../src/server/call-context.js';

/** A handler serving `agent`, as `serve --agent` would. */
export function handlerFor(agent: DemoAgent): A2ARequestHandler {
  return new A2ARequestHandler({
    agent: agent.executor,
    card: agent.card,
    ...(agent.extendedCard ? { extendedCard: agent.extendedCard } : {}),
  });
}

/** A user message with one text part. */
export function userMessage(messageId: string, text: string, extra: Partial<Message> = {}): Message {
  return { messageId, role: 'ROLE_USER', parts: [{ text }], ...extra };
}

/** Sends and expects a task result. */
export async function sendForTask(handler: A2ARequestHandler, message: Message): Promise<Task> {
  return taskOf(await handler.sendMessage({ message }, localCallContext()));
}

/** The task of a send result (fails the test on a message result). */
export function taskOf(res: SendMessageResponse): Task {
  if (!('task' in res)) throw new Error(`expected a task, got ${JSON.stringify(res)}`);
  return res.task;
}

/** Every event of a streaming send. */
export async function streamAll(handler: A2ARequestHandler, message: Message): Promise<StreamResponse[]> {
  const events: StreamResponse[] = [];
  for await (const ev of await handler.sendStreamingMessage({ message }, localCallContext())) events.push(ev);
  return events;
}

/** A compact label per event: `task`, `message`, `status:<STATE>`, `artifact`. */
export function eventKinds(events: readonly StreamResponse[]): string[] {
  return events.map((ev) => {
    if ('task' in ev) return 'task';
    if ('message' in ev) return 'message';
    if ('statusUpdate' in ev) return `status:${ev.statusUpdate.status.state}`;
    return 'artifact';
  });
}

/** The text parts of an artifact or message. */
export function texts(of: Artifact | Message | undefined): string[] {
  return (of?.parts ?? []).flatMap((p: Part) => ('text' in p ? [p.text] : []));
}

/** The temporary directories `tempLogPath` made in this test file, removed when the file's tests are done. */
const tempDirs: string[] = [];
// Registered when a test file imports this module, so it belongs to that file's run.
afterAll(() => {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh effects-log path in a temporary directory (removed after the test file). */
export function tempLogPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'a2a-once-agents-'));
  tempDirs.push(dir);
  return join(dir, 'effects.jsonl');
}

/** Polls `check` until it returns true (or fails after `timeoutMs`). */
export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 2000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
