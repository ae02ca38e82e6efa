/**
 * What the caller of a stream has seen, so a stream re-attached after a cut (a keyed resend, or
 * SubscribeToTask) shows each update once (docs/semantics.md §7, A2A v1.0). A re-attached stream starts with a task
 * snapshot; `resync` turns that snapshot into the updates the caller missed (artifacts or chunks it has not
 * seen, a status that changed), and the events that follow are filtered against what was already shown.
 *
 * It also decides when a stream has ended properly (A2A v1.0): after a `message`, or when the task is
 * terminal or INPUT_REQUIRED (AUTH_REQUIRED keeps the stream open). A body that ends earlier was cut.
 */
import type { Artifact, Part, StreamResponse, Task, TaskStatus } from '../../protocol/model.js';
import { isTerminalState } from '../../protocol/task-state.js';
import type { TaskState } from '../../protocol/task-state.js';
import { sameJson } from './same-json.js';

function endsStream(state: TaskState): boolean {
  return isTerminalState(state) || state === 'TASK_STATE_INPUT_REQUIRED';
}

function endsWithParts(seen: readonly Part[], tail: readonly Part[]): boolean {
  if (tail.length === 0 || tail.length > seen.length) return false;
  const offset = seen.length - tail.length;
  return tail.every((p, i) => sameJson(p, seen[offset + i]));
}

function startsWithParts(all: readonly Part[], head: readonly Part[]): boolean {
  return head.length <= all.length && head.every((p, i) => sameJson(p, all[i]));
}

/** The caller's view of one logical stream, across re-attachments. */
export class StreamView {
  /** The task's id, once an event named it. */
  taskId: string | undefined;
  /** The task's context, once an event named it. */
  contextId: string | undefined;
  /** Whether the stream reached its proper end. */
  ended = false;
  private status: TaskStatus | undefined;
  private readonly artifacts = new Map<string, Part[]>();
  private readonly messages = new Set<string>();
  private sawTask = false;
  /** Right after a re-attachment: events the snapshot already covered are dropped. */
  private resyncing = false;

  /** Whether the caller saw anything yet. */
  get started(): boolean {
    return this.sawTask || this.messages.size > 0;
  }

  /** Takes one live event; returns what to show the caller (nothing for a duplicate). */
  accept(ev: StreamResponse): StreamResponse[] {
    if ('message' in ev) {
      this.ended = true;
      if (this.messages.has(ev.message.messageId)) return [];
      this.messages.add(ev.message.messageId);
      this.resyncing = false;
      return [ev];
    }
    if ('task' in ev) {
      if (this.sawTask && this.resyncing) return this.resync(ev);
      this.takeTask(ev.task);
      this.resyncing = false;
      return [ev];
    }
    if ('statusUpdate' in ev) {
      const u = ev.statusUpdate;
      this.noteIds(u.taskId, u.contextId);
      if (endsStream(u.status.state)) this.ended = true;
      if (this.status !== undefined && sameJson(this.status, u.status)) return [];
      this.status = u.status;
      this.resyncing = false;
      return [ev];
    }
    const u = ev.artifactUpdate;
    this.noteIds(u.taskId, u.contextId);
    const seen = this.artifacts.get(u.artifact.artifactId);
    if (u.append === true && seen !== undefined) {
      if (this.resyncing && endsWithParts(seen, u.artifact.parts)) return [];
      this.artifacts.set(u.artifact.artifactId, [...seen, ...u.artifact.parts]);
    } else {
      if (seen !== undefined && sameJson(seen, u.artifact.parts)) return [];
      this.artifacts.set(u.artifact.artifactId, [...u.artifact.parts]);
    }
    this.resyncing = false;
    return [ev];
  }

  /**
   * Takes the first event of a re-attached stream. A task snapshot becomes the updates the caller missed; any
   * other event is taken as live, with duplicates of what was seen dropped.
   */
  resync(ev: StreamResponse): StreamResponse[] {
    this.resyncing = true;
    if (!('task' in ev) || !this.sawTask) return this.accept(ev);
    const task = ev.task;
    this.noteIds(task.id, task.contextId);
    const taskId = task.id;
    const contextId = task.contextId ?? this.contextId ?? '';
    const out: StreamResponse[] = [];
    for (const artifact of task.artifacts ?? []) {
      const delta = this.artifactDelta(artifact);
      if (delta !== undefined) out.push({ artifactUpdate: { taskId, contextId, ...delta } });
    }
    if (this.status === undefined || !sameJson(this.status, task.status)) {
      this.status = task.status;
      out.push({ statusUpdate: { taskId, contextId, status: task.status } });
    }
    if (endsStream(task.status.state)) this.ended = true;
    return out;
  }

  /** Marks the start of a re-attachment: the next event is handed to `resync`. */
  beginResync(): void {
    this.resyncing = true;
  }

  private artifactDelta(artifact: Artifact): { artifact: Artifact; append?: boolean } | undefined {
    const seen = this.artifacts.get(artifact.artifactId);
    this.artifacts.set(artifact.artifactId, [...artifact.parts]);
    if (seen === undefined) return { artifact };
    if (sameJson(seen, artifact.parts)) return undefined;
    if (startsWithParts(artifact.parts, seen)) {
      return { artifact: { ...artifact, parts: artifact.parts.slice(seen.length) }, append: true };
    }
    return { artifact };
  }

  private takeTask(task: Task): void {
    this.sawTask = true;
    this.noteIds(task.id, task.contextId);
    this.status = task.status;
    for (const a of task.artifacts ?? []) this.artifacts.set(a.artifactId, [...a.parts]);
    if (endsStream(task.status.state)) this.ended = true;
  }

  private noteIds(taskId: string, contextId: string | undefined): void {
    this.taskId ??= taskId;
    if (contextId !== undefined && contextId !== '') this.contextId ??= contextId;
  }
}
