/**
 * How events change a task (A2A §3.1, A2A v1.0): pure, copy-on-write functions. The store keeps the task and
 * its event log in step, so a snapshot at sequence `s` is exactly the fold of events 1..s over the created task.
 */
import type { Artifact, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '../protocol/model.js';

/** The task after a status update; the status message, if any, joins the history. */
export function applyStatusUpdate(task: Task, ev: TaskStatusUpdateEvent): Task {
  if (!ev.status.message) return { ...task, status: ev.status };
  return { ...task, status: ev.status, history: [...(task.history ?? []), ev.status.message] };
}

/** The task after an artifact update: replace by id, append parts (`append`), or add. */
export function applyArtifactUpdate(task: Task, ev: TaskArtifactUpdateEvent): Task {
  const artifacts: Artifact[] = [...(task.artifacts ?? [])];
  const i = artifacts.findIndex((a) => a.artifactId === ev.artifact.artifactId);
  if (i === -1) artifacts.push(ev.artifact);
  else if (ev.append) {
    const prev = artifacts[i]!;
    artifacts[i] = { ...prev, ...ev.artifact, parts: [...prev.parts, ...ev.artifact.parts] };
  } else artifacts[i] = ev.artifact;
  return { ...task, artifacts };
}

/** A view of a task for a response: `historyLength` unset = all, 0 = none, n = the n most recent (§3.2.4). */
export function shapeTask(task: Task, historyLength: number | undefined, includeArtifacts = true): Task {
  let out = task;
  if (historyLength !== undefined && task.history) {
    if (historyLength <= 0) {
      const { history: _omit, ...rest } = out;
      out = rest;
    } else if (task.history.length > historyLength) {
      out = { ...out, history: task.history.slice(-historyLength) };
    }
  }
  if (!includeArtifacts && out.artifacts !== undefined) {
    const { artifacts: _omit, ...rest } = out;
    out = rest;
  }
  return out;
}
