/**
 * Human-readable one-liners for tasks, stream events and client errors, for terminals and logs (the CLI prints
 * them). Keys never appear in clear: errors show `keyHash` only (docs/semantics.md §1).
 */
import { A2AError } from '../protocol/errors.js';
import type { Artifact, Message, Part, StreamResponse, Task } from '../protocol/model.js';
import { OutcomeUnknownError } from './sends/outcome-unknown-error.js';
import { TransportError } from './transport/transport-error.js';

/** `TASK_STATE_INPUT_REQUIRED` → `input-required`. */
function stateName(state: string): string {
  return state
    .replace(/^TASK_STATE_/, '')
    .toLowerCase()
    .replace(/_/g, '-');
}

function partText(p: Part): string {
  if ('text' in p) return p.text;
  if ('url' in p) return `<${p.url}>`;
  if ('raw' in p)
    return `[${p.mediaType ?? 'bytes'}${p.filename ? ` ${p.filename}` : ''}, ${p.raw.length} base64 chars]`;
  return JSON.stringify(p.data);
}

function partsText(parts: readonly Part[]): string {
  return parts.map(partText).join(' ');
}

function artifactLine(a: Artifact): string {
  return `  artifact ${a.name ?? a.artifactId}: ${partsText(a.parts)}`;
}

function messageLine(m: Message): string {
  const who = m.role === 'ROLE_AGENT' ? 'agent' : m.role === 'ROLE_USER' ? 'user' : 'message';
  return `${who}: ${partsText(m.parts)}`;
}

/** A task as lines: id and state, the status message, then each artifact. */
export function describeTask(task: Task): string[] {
  const lines = [
    `task ${task.id}  ${stateName(task.status.state)}${task.contextId ? `  (context ${task.contextId})` : ''}`,
  ];
  if (task.status.message) lines.push(`  ${messageLine(task.status.message)}`);
  for (const a of task.artifacts ?? []) lines.push(artifactLine(a));
  return lines;
}

/** One stream event as lines. */
export function describeStreamEvent(ev: StreamResponse): string[] {
  if ('task' in ev) return describeTask(ev.task);
  if ('message' in ev) return [messageLine(ev.message)];
  if ('statusUpdate' in ev) {
    const s = ev.statusUpdate.status;
    return [`status ${stateName(s.state)}${s.message ? `: ${partsText(s.message.parts)}` : ''}`];
  }
  const u = ev.artifactUpdate;
  return [`${u.append ? '+' : ''}${artifactLine(u.artifact).trimStart()}`];
}

/** An error as one line, with what the caller can do about it. */
export function describeError(err: unknown): string {
  if (err instanceof OutcomeUnknownError) {
    const recover = err.peerHonoursKeys
      ? 'resend with the same key to recover'
      : 'check the agent for the task before resending';
    return `${err.message}. ${recover}`;
  }
  if (err instanceof A2AError) return `${err.reason} (${err.code}): ${err.message}`;
  if (err instanceof TransportError) return `${err.code} (${err.kind}): ${err.message}`;
  return err instanceof Error ? err.message : String(err);
}
