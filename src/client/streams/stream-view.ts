/**
 * What the caller of a stream has seen, so a stream re-attached after a cut (a keyed resend, or SubscribeToTask)
 * shows each update once (docs/semantics.md §7, ADR 0021, A2A v1.0). A re-attached stream starts with a task
 * snapshot; `resync` turns that snapshot into the updates the caller missed (artifacts or chunks it has not seen,
 * a status that changed). The events after a snapshot come after its position (A2A v1.0: SubscribeToTask starts
 * with the task's current state, then its updates; a keyed replay is the snapshot and the events after its
 * sequence), so they are shown as they come: a live chunk equal to the tail already shown is a new chunk, and a
 * repeated identical status is a new report. Nothing is ever dropped for resembling what was shown.
 *
 * A stream resumed after a numbered event (ADR 0126) starts with the next event itself, and is taken with `accept`:
 * nothing to turn into a delta.
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

/** Whether `all` starts with the parts the caller was shown (then the snapshot only added chunks). */
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
  /** Each artifact's parts as the caller has them, to turn a later snapshot into what it lacks. */
  private readonly artifacts = new Map<string, Part[]>();
  /** Messages shown, by id: a replay or a re-attachment repeats a direct reply, which is one message. */
  private readonly messages = new Set<string>();
  private sawTask = false;

  /** Whether the caller saw anything yet. */
  get started(): boolean {
    return this.sawTask || this.messages.size > 0;
  }

  /**
   * Takes one live event and returns what to show the caller: the event itself, except a message already shown
   * (same messageId) and a task snapshot once a task was shown (then only what it adds).
   */
  accept(ev: StreamResponse): StreamResponse[] {
    if ('message' in ev) {
      this.ended = true;
      if (this.messages.has(ev.message.messageId)) return [];
      this.messages.add(ev.message.messageId);
      return [ev];
    }
    if ('task' in ev) {
      if (this.sawTask) return this.resync(ev);
      this.takeTask(ev.task);
      return [ev];
    }
    if ('statusUpdate' in ev) {
      const u = ev.statusUpdate;
      this.noteIds(u.taskId, u.contextId);
      if (endsStream(u.status.state)) this.ended = true;
      this.status = u.status;
      return [ev];
    }
    const u = ev.artifactUpdate;
    this.noteIds(u.taskId, u.contextId);
    const seen = this.artifacts.get(u.artifact.artifactId);
    this.artifacts.set(
      u.artifact.artifactId,
      u.append === true && seen !== undefined ? [...seen, ...u.artifact.parts] : [...u.artifact.parts],
    );
    return [ev];
  }

  /**
   * Takes the first event of a re-attached stream. A task snapshot becomes the updates the caller missed; any
   * other event is taken as live.
   */
  resync(ev: StreamResponse): StreamResponse[] {
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
