/**
 * How the in-memory store keeps a task's event log. The log lives as long as the task (hours, up to the task
 * cap), and every object in it is copied by the young-generation GC and then marked by the old one: the plain
 * form, `{ seq, event: { statusUpdate: { taskId, contextId, status } } }`, is three objects per event on top of
 * the status or artifact itself, and made up a third of a small task's retained heap. Measured on the echo
 * agent (ADR 0023): keeping it compact cut the CPU per blocking send by about a fifth.
 *
 * So the log holds, per event, the smallest thing that rebuilds it exactly:
 * - a status update of this task with nothing else set: its `TaskStatus` (usually the very object the task
 *   holds as `status`);
 * - an artifact update of this task with nothing else set: its `Artifact` (shared with the task's artifacts);
 * - anything else (metadata, `append`/`lastChunk`, a direct reply, another task's ids): the event as it is.
 * The three are told apart by shape: a StreamResponse's only members are `task`, `message`, `statusUpdate` and
 * `artifactUpdate`, a TaskStatus always has `state`, an Artifact always has `artifactId`.
 * Readers get freshly built `StoredEvent`s: short-lived objects, which are what the young GC handles cheaply.
 */
import type { Artifact, StreamResponse, Task, TaskStatus } from '../../protocol/model.js';
import type { StoredEvent } from '../records.js';

/** One entry of a compact log: see the file comment. */
export type LogEntry = TaskStatus | Artifact | StreamResponse;

/** Whether `o` has exactly the members taskId, contextId and `third`, the ids being the task's. */
function isBare(o: object, task: Task, third: string): boolean {
  let n = 0;
  for (const k in o) {
    if (k !== 'taskId' && k !== 'contextId' && k !== third) return false;
    n++;
  }
  const e = o as { taskId: unknown; contextId: unknown };
  return n === 3 && e.taskId === task.id && e.contextId === task.contextId;
}

/** The entry to append for `event` of `task`. */
export function toLogEntry(event: StreamResponse, task: Task): LogEntry {
  if ('statusUpdate' in event) {
    const u = event.statusUpdate;
    if (isBare(u, task, 'status') && 'state' in u.status) return u.status;
  } else if ('artifactUpdate' in event) {
    const u = event.artifactUpdate;
    if (isBare(u, task, 'artifact') && 'artifactId' in u.artifact) return u.artifact;
  }
  return event;
}

/** The event an entry stands for. */
export function fromLogEntry(entry: LogEntry, task: Task): StreamResponse {
  if ('state' in entry)
    return { statusUpdate: { taskId: task.id, contextId: task.contextId ?? '', status: entry } };
  if ('artifactId' in entry)
    return { artifactUpdate: { taskId: task.id, contextId: task.contextId ?? '', artifact: entry } };
  return entry;
}

/** The stored events after `afterSeq` (`log[i]` has seq i + 1). */
export function eventsAfter(log: readonly LogEntry[], task: Task, afterSeq: number): StoredEvent[] {
  const out: StoredEvent[] = [];
  for (let i = Math.max(0, afterSeq); i < log.length; i++) {
    out.push({ seq: i + 1, event: fromLogEntry(log[i]!, task) });
  }
  return out;
}
