/**
 * The handle of a delegated child task (ADR 0040): its id, its polled states as events, how it ended, and cancel /
 * detach. One poll loop serves all of them; when the child is leased, each poll carries the renewal header, so a
 * parent renews exactly while it is still watching (ADR 0039). The client's `Delegation` and the server's
 * `delegate` both return it: it lives below them, so neither spells it again.
 */
import type { Message, Task } from '../protocol/model.js';
import type { TaskState } from '../protocol/task-state.js';
import { DELEGATION_EXTENSION_URI, LEASE_RENEWAL_HEADER } from './delegation-wire.js';
import type { DelegationPeer } from './delegation-peer.js';

/**
 * How a child ended, as far as the parent can tell. `input-required` and `auth-required`: the child waits for
 * its client (the parent), for input or for a credential (A2A §7.6), so a parent can ask its own caller for the
 * same. `detached`: the parent stopped watching (`detach()`), so it does not know; the child may still be
 * running (a leased one cancels itself once its lease lapses).
 */
export type DelegationStatus =
  'completed' | 'failed' | 'canceled' | 'rejected' | 'input-required' | 'auth-required' | 'lost' | 'detached';

/** The outcome of a delegation. */
export interface DelegationOutcome {
  readonly status: DelegationStatus;
  /** The child task's last known state (absent when the child replied with a bare message, or was lost unseen). */
  readonly task?: Task;
  /** The child's direct reply, when it answered with a message instead of a task. */
  readonly message?: Message;
  /** Why the child counts as lost, or that the parent detached. */
  readonly reason?: string;
}

/** How the handle watches its child. */
export interface WatchOptions {
  /** Time between polls (ms); a leased child is polled at least every third of its lease. Default 500. */
  readonly pollMs?: number;
  /** The child is `lost` when no poll succeeded for this long (ms). Default 60 s. */
  readonly lostAfterMs?: number;
  /** The child's lease, when it has one: polls then renew it. */
  readonly leaseMs?: number;
}

/**
 * Called once with the outcome, before `outcome()` resolves with it: the server's `delegate` uses it to act on
 * a child cancelled because a task above the parent was (ADR 0062) before the parent's agent reads the outcome.
 * A rejection is ignored (the outcome stands).
 */
export type BeforeSettle = (outcome: DelegationOutcome) => Promise<void>;

const SETTLED: Partial<Record<TaskState, DelegationStatus>> = {
  TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_FAILED: 'failed',
  TASK_STATE_CANCELED: 'canceled',
  TASK_STATE_REJECTED: 'rejected',
  // Either interrupted state hands control back to the parent, which must answer or cancel.
  TASK_STATE_INPUT_REQUIRED: 'input-required',
  TASK_STATE_AUTH_REQUIRED: 'auth-required',
};

/** The delegation status of a task state, or undefined while the child still works. */
export function settledStatusOf(state: TaskState): DelegationStatus | undefined {
  return SETTLED[state];
}

/** A delegated child. */
export class DelegationHandle {
  /** The child task's id; undefined when it answered with a bare message or was lost before its id was known. */
  readonly taskId: string | undefined;
  readonly #peer: DelegationPeer;
  readonly #opts: Required<Omit<WatchOptions, 'leaseMs'>> & { leaseMs: number | undefined };
  readonly #states: Task[] = [];
  readonly #wakers = new Set<() => void>();
  readonly #outcome: Promise<DelegationOutcome>;
  #resolve!: (o: DelegationOutcome) => void;
  #settled: DelegationOutcome | undefined;
  #stopped = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #cancelling: Promise<DelegationOutcome> | undefined;
  #beforeSettle: BeforeSettle | undefined;

  private constructor(peer: DelegationPeer, taskId: string | undefined, opts: WatchOptions) {
    this.#peer = peer;
    this.taskId = taskId;
    const leaseMs = opts.leaseMs;
    const pollMs = opts.pollMs ?? 500;
    this.#opts = {
      pollMs: leaseMs === undefined ? pollMs : Math.min(pollMs, Math.floor(leaseMs / 3)),
      lostAfterMs: opts.lostAfterMs ?? 60_000,
      leaseMs,
    };
    this.#outcome = new Promise((resolve) => (this.#resolve = resolve));
  }

  /**
   * A handle that watches a child: from the state the send returned, or from its id alone (a resumed parent),
   * polled at once.
   */
  static watching(
    peer: DelegationPeer,
    first: Task | string,
    opts: WatchOptions = {},
    beforeSettle?: BeforeSettle,
  ): DelegationHandle {
    const h = new DelegationHandle(peer, typeof first === 'string' ? first : first.id, opts);
    h.#beforeSettle = beforeSettle;
    if (typeof first === 'string') {
      void h.#poll(Date.now());
      return h;
    }
    h.#observe(first);
    if (h.#settled === undefined) h.#schedule(Date.now());
    return h;
  }

  /** A handle already settled: a bare-message reply, or a child that is lost. */
  static settled(taskId: string | undefined, outcome: DelegationOutcome): DelegationHandle {
    const h = new DelegationHandle(NO_PEER, taskId, {});
    if (outcome.task) h.#states.push(outcome.task);
    h.#settle(outcome);
    return h;
  }

  /** How the child ended: resolves once it is terminal, waits for input, or is lost. Never rejects. */
  outcome(): Promise<DelegationOutcome> {
    return this.#outcome;
  }

  /** Each state of the child the parent saw (the first one included), until it settles or the handle stops. */
  get events(): AsyncIterable<Task> {
    return { [Symbol.asyncIterator]: () => this.#iterate() };
  }

  /**
   * Cancels the child (unless it already settled) and settles the handle with the answer. Calls made while a
   * cancel is under way share it: one CancelTask per child. After `detach()` the handle stays `detached`, but
   * the child may still run, so a cancel is still sent; it answers with what the cancel found.
   */
  cancel(): Promise<DelegationOutcome> {
    const detached = this.#settled?.status === 'detached';
    if ((this.#settled !== undefined && !detached) || this.taskId === undefined) return this.#outcome;
    this.#cancelling ??= this.#cancel(this.taskId);
    return this.#cancelling;
  }

  async #cancel(taskId: string): Promise<DelegationOutcome> {
    this.#stop();
    let found: DelegationOutcome | undefined;
    const take = (task: Task): void => {
      this.#observe(task);
      const status = settledStatusOf(task.status.state);
      if (status !== undefined) found = { status, task };
    };
    try {
      take(await this.#peer.cancelTask(taskId));
    } catch (err) {
      // A child that already ended refuses the cancel (-32002 / -32004): read what it ended as.
      const task = await this.#peer.getTask(taskId).catch(() => undefined);
      if (task) take(task);
      found ??= { status: 'lost', reason: `the cancel was not answered: ${String(err)}` };
    }
    if (found === undefined) {
      // The peer accepted the cancel but reported a state still running; the parent no longer watches it.
      const last = this.#states.at(-1);
      found = { status: 'canceled', ...(last ? { task: last } : {}) };
    }
    this.#settle(found);
    // Detached first: the handle's outcome stays `detached`; the caller gets what the cancel found.
    return this.#settled?.status === 'detached' ? found : this.#outcome;
  }

  /**
   * Stops watching (and renewing: a leased child then cancels itself when its lease lapses), and settles the
   * outcome as `detached` with the last state seen, so nothing waits on `outcome()` forever. A handle already
   * settled keeps its outcome.
   */
  detach(): void {
    this.#stop();
    if (this.#settled === undefined && this.#cancelling === undefined) {
      const last = this.#states.at(-1);
      this.#settle({
        status: 'detached',
        ...(last ? { task: last } : {}),
        reason: 'the parent stopped watching the child; it may still be running',
      });
    }
    this.#wake();
  }

  /** Whether the outcome is known. */
  get isSettled(): boolean {
    return this.#settled !== undefined;
  }

  #stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
  }

  #schedule(lastSuccess: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#poll(lastSuccess), this.#opts.pollMs);
  }

  async #poll(lastSuccess: number): Promise<void> {
    if (this.#stopped || this.taskId === undefined) return;
    const renew = this.#opts.leaseMs !== undefined;
    try {
      const task = await this.#peer.getTask(
        this.taskId,
        renew ? { headers: { [LEASE_RENEWAL_HEADER]: '1' }, extensions: [DELEGATION_EXTENSION_URI] } : {},
      );
      if (this.#stopped) return;
      this.#observe(task);
      if (this.#settled === undefined) this.#schedule(Date.now());
    } catch (err) {
      if (this.#stopped) return;
      if (Date.now() - lastSuccess >= this.#opts.lostAfterMs) {
        const last = this.#states.at(-1);
        this.#settle({
          status: 'lost',
          ...(last ? { task: last } : {}),
          reason: `the child was unreachable for ${this.#opts.lostAfterMs} ms: ${String(err)}`,
        });
        return;
      }
      this.#schedule(lastSuccess);
    }
  }

  #observe(task: Task): void {
    const last = this.#states.at(-1);
    if (
      last === undefined ||
      last.status.state !== task.status.state ||
      last.status.timestamp !== task.status.timestamp
    ) {
      this.#states.push(task);
      this.#wake();
    }
    const status = settledStatusOf(task.status.state);
    if (status !== undefined) this.#settle({ status, task });
  }

  #settle(outcome: DelegationOutcome): void {
    if (this.#settled !== undefined) return;
    this.#settled = outcome;
    this.#stop();
    const hook = this.#beforeSettle;
    if (hook === undefined) this.#resolve(outcome);
    else
      void hook(outcome)
        .catch(() => undefined)
        .then(() => this.#resolve(outcome));
    this.#wake();
  }

  #wake(): void {
    for (const w of this.#wakers) w();
    this.#wakers.clear();
  }

  async *#iterate(): AsyncGenerator<Task> {
    let i = 0;
    for (;;) {
      while (i < this.#states.length) yield this.#states[i++]!;
      if (this.#stopped || this.#settled !== undefined) return;
      await new Promise<void>((resolve) => this.#wakers.add(resolve));
    }
  }
}

const NO_PEER: DelegationPeer = {
  peerHonoursKeys: false,
  send: () => Promise.reject(new Error('settled delegation')),
  getTask: () => Promise.reject(new Error('settled delegation')),
  cancelTask: () => Promise.reject(new Error('settled delegation')),
};
