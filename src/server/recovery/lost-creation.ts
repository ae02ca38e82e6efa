/**
 * New tasks whose claim-and-create may have landed though every answer to it was lost (ADR 0052). Admission
 * retried the write and gave up, so it started nothing and told the caller the store failed; the task may all
 * the same be stored, SUBMITTED under this server's lease, with no worker. Only this process knows its agent
 * never started, so this process looks for it, with backoff, once the store answers again: if it is there and
 * untouched (fence 1, seq 0) it is taken over with one fenced commit (of racing recoverers one wins) and its
 * first turn starts, as if admission had got the answer. Only a read looks for it: nothing is created here (a
 * creation that did not land stays not done; the caller was told so and may resend).
 *
 * A recovery sweep that meets such a task after its lease lapsed starts it the same way instead of failing it as
 * lost, while this process remembers it; a task of a process that died first is recovered like any other.
 */
import type { Clock } from '../../store/clock.js';
import type { StoredTask } from '../../store/records.js';
import type { Scope } from '../../store/scope.js';
import type { CreateTaskInput, TaskStore } from '../../store/task-store.js';
import { errorFields, logSafely } from '../observability/error-log.js';
import type { ServerLogger } from '../observability/logger.js';
import type { Runner } from '../runner/runner.js';
import type { TurnLeases } from '../runner/turn-lease.js';
import { newWriteId } from '../runner/write-id.js';
import { DEFAULT_WRITE_RETRY, retryDelay, type WriteRetryPolicy } from '../runner/write-retry.js';
import { lostTurnOf } from './lost-turn.js';

/** How long a lost creation is looked for before this process forgets it (the store stayed away). */
export const LOST_CREATION_SEARCH_MS = 10 * 60_000;

/** What the search needs. */
export interface LostCreationsInit {
  readonly store: TaskStore;
  readonly runner: Runner;
  readonly clock: Clock;
  readonly logger: ServerLogger;
  readonly leases: TurnLeases;
  readonly retry?: WriteRetryPolicy;
}

/** The lost creations of this process, and the search for them. */
export class LostCreations {
  /**
   * `writeId` is the one takeover commit's, kept across attempts: an attempt whose answer is lost may have landed
   * (fence 2, seq 0, our lease), and only the same write id, sent again, is answered as landed (ADR 0052).
   */
  readonly #pending = new Map<string, { scope: Scope; until: number; writeId: string; tried: boolean }>();
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  /** Claim-and-creates of this process still running (their answer not in yet), by scope and task id. */
  readonly #creating = new Map<string, number>();
  #closed = false;

  constructor(private readonly init: LostCreationsInit) {}

  /** Creations being looked for right now. */
  get size(): number {
    return this.#pending.size;
  }

  /** Remembers a creation whose answer was lost and starts looking for it. */
  add(scope: Scope, input: CreateTaskInput): void {
    if (this.#closed) return;
    const id = idOf(scope, input.task.id);
    if (this.#pending.has(id)) return;
    this.#pending.set(id, {
      scope,
      until: this.init.clock.now() + LOST_CREATION_SEARCH_MS,
      writeId: newWriteId(),
      tried: false,
    });
    this.#schedule(id, input.task.id, 0);
  }

  /**
   * Marks a claim-and-create of this process as running until the returned function is called. Its task may be
   * stored (an attempt landed, its answer lost) and its lease lapse while the creator still retries: recovery then
   * leaves it to the creator, which starts it when an answer comes (`landedEarlier`) or hands it to `add`.
   */
  creating(scope: Scope, taskId: string): () => void {
    const id = idOf(scope, taskId);
    this.#creating.set(id, (this.#creating.get(id) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const n = (this.#creating.get(id) ?? 1) - 1;
      if (n > 0) this.#creating.set(id, n);
      else this.#creating.delete(id);
    };
  }

  /** Whether a claim-and-create of this task is running in this process right now. */
  isBeingCreated(scope: Scope, taskId: string): boolean {
    return this.#creating.has(idOf(scope, taskId));
  }

  /** Whether `record` is a creation of this process that never started (its first turn may be started here). */
  isUnstarted(scope: Scope, record: StoredTask): boolean {
    const pending = this.#pending.get(idOf(scope, record.task.id));
    return pending !== undefined && startable(record, pending.tried);
  }

  /**
   * Takes the untouched task over (fence 1 -> 2, a new lease, nothing else changed) and starts its first turn.
   * Undefined when another recoverer (or anything) changed it first.
   */
  async start(scope: Scope, record: StoredTask): Promise<StoredTask | undefined> {
    const { store, runner, leases } = this.init;
    const taskId = record.task.id;
    const pending = this.#pending.get(idOf(scope, taskId));
    const turn = lostTurnOf(record.task);
    if (pending === undefined || !startable(record, pending.tried) || turn === undefined) {
      this.#pending.delete(idOf(scope, taskId));
      return undefined;
    }
    pending.tried = true;
    // Thrown (the store failed again): still remembered, and looked for again, with the same write id.
    const res = await store.commit(scope, taskId, {
      expectFence: 1,
      expectSeq: 0,
      nextFence: 2,
      task: record.task,
      events: [],
      lease: leases.grant(2),
      writeId: pending.writeId,
    });
    this.#pending.delete(idOf(scope, taskId));
    if (!res.ok) return undefined;
    logSafely(this.init.logger, 'warn', 'started a task whose creation answer was lost', {
      taskId,
      fence: 2,
    });
    void runner.start({
      scope,
      record: res.record,
      message: turn.message,
      isContinuation: false,
      // The call that requested extensions was answered with the store's error; the turn has none.
      requestedExtensions: [],
      principal: scope.owner === '' ? undefined : scope.owner,
    });
    return res.record;
  }

  /** Stops looking (the server closes). */
  close(): void {
    this.#closed = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    this.#pending.clear();
  }

  #schedule(id: string, taskId: string, attempt: number): void {
    const policy = this.init.retry ?? DEFAULT_WRITE_RETRY;
    const timer = setTimeout(
      () => {
        this.#timers.delete(timer);
        void this.#look(id, taskId, attempt);
      },
      attempt === 0 ? policy.firstDelayMs : retryDelay(attempt, policy),
    );
    timer.unref?.();
    this.#timers.add(timer);
  }

  async #look(id: string, taskId: string, attempt: number): Promise<void> {
    const pending = this.#pending.get(id);
    if (this.#closed || pending === undefined) return;
    try {
      const record = await this.init.store.getTask(pending.scope, taskId);
      if (record === undefined || !startable(record, pending.tried)) {
        // Not stored (the creation did not land), or already moving (recovery took it over): nothing to do.
        this.#pending.delete(id);
        return;
      }
      await this.start(pending.scope, record);
    } catch (err) {
      if (this.init.clock.now() >= pending.until) {
        this.#pending.delete(id);
        logSafely(this.init.logger, 'error', 'gave up looking for a task whose creation answer was lost', {
          taskId,
          ...errorFields(err),
        });
        return;
      }
      this.#schedule(id, taskId, attempt + 1);
    }
  }
}

/** Untouched since its creation: nobody ever wrote to it, so no turn of it ever stored anything. */
function pristine(record: StoredTask): boolean {
  return record.fence === 1 && record.seq === 0 && record.kind === 'task';
}

/**
 * Whether the first turn may be started here: untouched, or, once a takeover of ours was sent and its answer
 * lost, possibly taken over by it and nothing more (fence 2, no event). Which of the two it was, our takeover or
 * another recoverer's, the takeover sent again with its write id tells: only ours is answered as landed.
 */
function startable(record: StoredTask, tried: boolean): boolean {
  return pristine(record) || (tried && record.fence === 2 && record.seq === 0 && record.kind === 'task');
}

function idOf(scope: Scope, taskId: string): string {
  return `${scope.tenant}\u0000${scope.owner}\u0000${taskId}`;
}
