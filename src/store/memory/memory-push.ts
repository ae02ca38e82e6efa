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
import { isFinished, type MemoryState } from './memory-state.js';

/** One webhook's cursor (mutable: only this file changes it). */
export class MemoryPushCursor {
  deliveredSeq = 0;
  attempts = 0;
  nextAttemptAt = 0;
  failingSince: number | undefined = undefined;
  lastError: string | undefined = undefined;
  givenUpEvents = 0;
  lastGiveUp: PushGiveUp | undefined = undefined;
  /** The name of the last claim (kept after it is released: see `recordDelivery`). */
  claimHolder: string | undefined = undefined;
  /** When the current claim lapses; undefined when nobody holds the cursor. */
  claimUntil: number | undefined = undefined;

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

/**
 * Stores a config on `entry`; a new id gets a cursor before the task's first event (at its last one when the task
 * is finished: a webhook hears what happens from its creation on, ADR 0058), a replaced one keeps its own.
 */
export function putConfig(state: MemoryState, entry: TaskEntry, config: TaskPushNotificationConfig): void {
  const id = config.id;
  if (!id) return;
  (entry.pushConfigs ??= new Map()).set(id, config);
  const cursors = (entry.pushCursors ??= new Map());
  if (!cursors.has(id)) {
    const cursor = new MemoryPushCursor(id);
    if (isFinished(entry.record)) cursor.deliveredSeq = entry.record.seq;
    cursors.set(id, cursor);
  }
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
        const free = cursor.claimUntil === undefined || cursor.claimUntil <= now;
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

/**
 * Records an outcome under the claim (see `TaskStore.recordPushDelivery`). A released claim keeps its holder's
 * name (with no `claimUntil`), so a repeat of the outcome that released it is recognised as landed (ADR 0056).
 */
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
  if (c.claimUntil === undefined) return releasedBy(c, outcome);
  if (outcome.kind === 'released') {
    release(c);
    return true;
  }
  // A repeat of an acknowledgement that landed: the claim is still held and the cursor is at that event.
  if (outcome.kind === 'delivered' && outcome.seq === c.deliveredSeq) {
    c.claimUntil = now + outcome.claimMs;
    return true;
  }
  if (outcome.seq !== c.deliveredSeq + 1) return false;
  switch (outcome.kind) {
    case 'sending':
      c.claimUntil = now + outcome.claimMs;
      return true;
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

/**
 * Whether `outcome` is a repeat of the one with which this holder released its claim (its answer was lost): a
 * claim records one releasing outcome at most, and the cursor still shows it.
 */
function releasedBy(c: MemoryPushCursor, outcome: PushOutcome): boolean {
  switch (outcome.kind) {
    case 'released':
      return true;
    case 'failed':
      return c.deliveredSeq === outcome.seq - 1 && c.attempts > 0 && c.nextAttemptAt === outcome.retryAt;
    case 'given-up':
      return c.lastGiveUp?.fromSeq === outcome.seq && c.deliveredSeq >= outcome.seq;
    case 'sending':
    case 'delivered':
      return false;
  }
}

/** Ends the claim but keeps its holder's name, so a repeat of the releasing outcome is recognised. */
function release(c: MemoryPushCursor): void {
  c.claimUntil = undefined;
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
