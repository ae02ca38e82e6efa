/**
 * Push delivery cursors in the in-memory store (ADR 0045). Each task entry keeps one cursor per push config; a
 * commit that appends events puts the entry in the store's `pushPending` set (the outbox mark), and a claim walks
 * that set. Each function runs in one synchronous step: that is the memory store's whole atomicity argument, so a
 * claim can never interleave with another claim or with a commit.
 */
import type { TaskPushNotificationConfig } from '../../protocol/requests.js';
import {
  checkPushClaim,
  checkPushOutcome,
  type PushDelivery,
  type PushDeliveryState,
  type PushGiveUp,
  type PushOutcome,
} from '../push-delivery.js';
import type { Scope } from '../scope.js';
import type { TaskEntry } from './memory-partition.js';
import type { MemoryState } from './memory-state.js';

/** One webhook's cursor (mutable: only this file changes it). */
export class MemoryPushCursor {
  deliveredSeq = 0;
  attempts = 0;
  nextAttemptAt = 0;
  failingSince: number | undefined = undefined;
  lastError: string | undefined = undefined;
  givenUpEvents = 0;
  lastGiveUp: PushGiveUp | undefined = undefined;
  claimHolder: string | undefined = undefined;
  claimUntil = 0;

  constructor(readonly configId: string) {}

  state(taskSeq: number): PushDeliveryState {
    return {
      configId: this.configId,
      deliveredSeq: this.deliveredSeq,
      taskSeq,
      attempts: this.attempts,
      nextAttemptAt: this.nextAttemptAt,
      ...(this.failingSince === undefined ? {} : { failingSince: this.failingSince }),
      ...(this.lastError === undefined ? {} : { lastError: this.lastError }),
      givenUpEvents: this.givenUpEvents,
      ...(this.lastGiveUp === undefined ? {} : { lastGiveUp: this.lastGiveUp }),
    };
  }
}

/** Stores a config on `entry`; a new id gets a cursor before the task's first event, a replaced one keeps its own. */
export function putConfig(state: MemoryState, entry: TaskEntry, config: TaskPushNotificationConfig): void {
  const id = config.id;
  if (!id) return;
  (entry.pushConfigs ??= new Map()).set(id, config);
  const cursors = (entry.pushCursors ??= new Map());
  if (!cursors.has(id)) cursors.set(id, new MemoryPushCursor(id));
  if (entry.record.seq > 0) state.pushPending.add(entry);
}

/** Deletes a config and its cursor. */
export function deleteConfig(entry: TaskEntry | undefined, id: string): boolean {
  if (!entry) return false;
  entry.pushCursors?.delete(id);
  if (entry.pushCursors?.size === 0) entry.pushCursors = undefined;
  const deleted = entry.pushConfigs?.delete(id) ?? false;
  if (entry.pushConfigs?.size === 0) entry.pushConfigs = undefined;
  return deleted;
}

/** Claims due cursors, oldest due first (see `TaskStore.claimPushDeliveries`). */
export function claimDeliveries(
  state: MemoryState,
  holder: string,
  claimMs: number,
  limit: number,
  now: number,
): PushDelivery[] {
  checkPushClaim('claimPushDeliveries', holder, claimMs, limit);
  const due: { entry: TaskEntry; cursor: MemoryPushCursor }[] = [];
  for (const entry of state.pushPending) {
    const seq = entry.record.seq;
    let behind = false;
    if (!state.isPastTtl(entry.record, now)) {
      for (const cursor of entry.pushCursors?.values() ?? []) {
        if (cursor.deliveredSeq >= seq) continue;
        behind = true;
        const free = cursor.claimHolder === undefined || cursor.claimUntil <= now;
        if (free && cursor.nextAttemptAt <= now) due.push({ entry, cursor });
      }
    }
    // Fully delivered (or gone for every reader): out of the set until its next commit.
    if (!behind) state.pushPending.delete(entry);
  }
  due.sort((a, b) => a.cursor.nextAttemptAt - b.cursor.nextAttemptAt);
  return due.slice(0, limit).map(({ entry, cursor }) => {
    cursor.claimHolder = holder;
    cursor.claimUntil = now + claimMs;
    const p = entry.partition;
    return {
      ...cursor.state(entry.record.seq),
      scope: { tenant: p.tenant, owner: p.owner },
      taskId: entry.record.task.id,
      config: entry.pushConfigs!.get(cursor.configId)!,
    };
  });
}

/** Records an outcome under the claim (see `TaskStore.recordPushDelivery`). */
export function recordDelivery(
  state: MemoryState,
  scope: Scope,
  taskId: string,
  configId: string,
  holder: string,
  outcome: PushOutcome,
  now: number,
): boolean {
  const error = checkPushOutcome('recordPushDelivery', holder, outcome);
  const entry = state.partition(scope)?.tasks?.get(taskId);
  const c = entry?.pushCursors?.get(configId);
  if (!entry || !c || c.claimHolder !== holder) return false;
  if (outcome.kind === 'released') {
    release(c);
    return true;
  }
  if (outcome.seq !== c.deliveredSeq + 1) return false;
  switch (outcome.kind) {
    case 'delivered':
      c.deliveredSeq = outcome.seq;
      c.attempts = 0;
      c.failingSince = undefined;
      c.nextAttemptAt = now;
      c.claimUntil = now + outcome.claimMs;
      return true;
    case 'failed':
      c.attempts++;
      c.failingSince ??= now;
      c.lastError = error;
      c.nextAttemptAt = outcome.retryAt;
      release(c);
      return true;
    case 'given-up': {
      const through = outcome.through === 'event' ? outcome.seq : Math.max(outcome.seq, entry.record.seq);
      c.givenUpEvents += through - c.deliveredSeq;
      c.lastGiveUp = { fromSeq: outcome.seq, throughSeq: through, at: now, reason: outcome.reason };
      c.deliveredSeq = through;
      c.attempts = 0;
      c.failingSince = undefined;
      c.lastError = error;
      c.nextAttemptAt = now;
      release(c);
      return true;
    }
  }
}

function release(c: MemoryPushCursor): void {
  c.claimHolder = undefined;
  c.claimUntil = 0;
}

/** Where delivery to a config stands. */
export function deliveryState(
  state: MemoryState,
  scope: Scope,
  taskId: string,
  configId: string,
): PushDeliveryState | undefined {
  const entry = state.partition(scope)?.tasks?.get(taskId);
  return entry?.pushCursors?.get(configId)?.state(entry.record.seq);
}
