/**
 * Applies each `(taskId, seq)` once and in order (docs/semantics.md §5, "Receiver"; ADR 0046). Under the task's
 * entry lock, with `last` its last applied sequence number:
 *
 * - `seq <= last`: a duplicate (a sender retry after a lost 2xx, or a late copy), acknowledged, not applied;
 * - `seq == last + 1`: applied, and `seq` recorded in the same transaction;
 * - `seq > last + 1`, early: the delivery waits, outside the lock, up to `reorderWindowMs` for its predecessors
 *   (woken when this process applies one, polling for other processes);
 * - `seq > last + 1` past the window: a gap. The task is fetched with GetTask outside the transaction (never
 *   holding a database lock across the network), then, under the lock again and only if the gap is still there,
 *   the snapshot is applied (`kind: 'snapshot'`), then the event, then `seq` is recorded: one transaction.
 *
 * Deliveries for one task queue in this process, so a gap is fetched once, not by every waiting delivery.
 */
import type { StreamResponse, Task } from '../protocol/model.js';
import type { AdvanceSignal } from './advance-signal.js';
import type { KeyedMutex } from './keyed-mutex.js';
import type { LockedEntry, ProcessedSet } from './processed-set.js';
import { fetchSnapshot, type TaskSource } from './task-source.js';
import type { VerifiedDelivery } from './verify-delivery.js';
import type { WebhookOutcome } from './verdict.js';

/** What `apply` is told besides the event. */
export interface ApplyInfo<Tx> {
  /**
   * `event`: the delivered event `seq`. `snapshot`: the event is `{ task }` from GetTask, standing in for the
   * missing events `missed.from`..`missed.to`; it may already hold what later events will bring (ADR 0046).
   */
  readonly kind: 'event' | 'snapshot';
  readonly taskId: string;
  /** The delivered event's sequence number (for a snapshot: the event applied right after it). */
  readonly seq: number;
  /** The delivery's `webhook-id` (`<taskId>:<seq>`), usable as an idempotency key downstream. */
  readonly webhookId: string;
  /** The receiver's scope (its option, default ""). */
  readonly scope: string;
  /** The missing sequence numbers a snapshot stands in for (snapshot only). */
  readonly missed?: { readonly from: number; readonly to: number };
  /**
   * The processed-set's open transaction (SQLite: the Database; PostgreSQL: the pool client; memory: undefined).
   * Writes made through it commit with the record of `seq`, or not at all: exactly once across a crash.
   */
  readonly tx: Tx;
}

/** The user's callback: make the event's effect. A throw answers 500, records nothing, and the sender retries. */
export type ApplyFn<Tx> = (event: StreamResponse, info: ApplyInfo<Tx>) => void | Promise<void>;

/** The user's `apply` threw: nothing was recorded. */
export class ApplyError extends Error {
  readonly code = 'APPLY_FAILED';
  constructor(options: { cause: unknown }) {
    super('apply threw: nothing was recorded, the sender will retry', options);
    this.name = 'ApplyError';
  }
}

/** What the ordering needs. */
export interface OrderSettings<Tx> {
  readonly store: ProcessedSet<Tx>;
  readonly scope: string;
  readonly apply: ApplyFn<Tx>;
  readonly tasks: TaskSource;
  readonly reorderWindowMs: number;
  readonly pollIntervalMs: number;
  readonly queue: KeyedMutex;
  readonly signal: AdvanceSignal;
}

type Step = { readonly outcome: WebhookOutcome } | { readonly early: true } | { readonly gap: true };

async function callApply<Tx>(apply: ApplyFn<Tx>, event: StreamResponse, info: ApplyInfo<Tx>): Promise<void> {
  try {
    await apply(event, info);
  } catch (err) {
    throw new ApplyError({ cause: err });
  }
}

/** Applies `d` in its turn; resolves with how it was accepted, or throws (ApplyError, GapRepairError, store). */
export async function applyInOrder<Tx>(s: OrderSettings<Tx>, d: VerifiedDelivery): Promise<WebhookOutcome> {
  const key = `${s.scope}\u0000${d.taskId}`;
  const deadline = Date.now() + s.reorderWindowMs;
  const base = { taskId: d.taskId, seq: d.seq, webhookId: d.webhookId, scope: s.scope };

  const decide = (snapshot: Task | undefined) => async (entry: LockedEntry<Tx>) => {
    const last = entry.lastSeq;
    if (d.seq <= last) return { result: { outcome: 'duplicate' } as Step };
    if (d.seq === last + 1) {
      await callApply(s.apply, d.event, { ...base, kind: 'event', tx: entry.tx });
      return { recordSeq: d.seq, result: { outcome: 'applied' } as Step };
    }
    if (snapshot === undefined)
      return { result: (Date.now() < deadline ? { early: true } : { gap: true }) as Step };
    const missed = { from: last + 1, to: d.seq - 1 };
    await callApply(s.apply, { task: snapshot }, { ...base, kind: 'snapshot', missed, tx: entry.tx });
    await callApply(s.apply, d.event, { ...base, kind: 'event', tx: entry.tx });
    return { recordSeq: d.seq, result: { outcome: 'repaired' } as Step };
  };

  for (;;) {
    const step = await s.queue.run(key, async () => {
      const first = await s.store.withEntry(s.scope, d.taskId, decide(undefined));
      if (!('gap' in first)) return first;
      const snapshot = await fetchSnapshot(s.tasks, d.taskId);
      // Another process may have applied the missing events meanwhile: decided afresh under the lock.
      return s.store.withEntry(s.scope, d.taskId, decide(snapshot));
    });
    if ('outcome' in step) {
      if (step.outcome !== 'duplicate') s.signal.notify(key);
      return step.outcome;
    }
    await s.signal.wait(key, Math.min(s.pollIntervalMs, deadline - Date.now()));
  }
}
