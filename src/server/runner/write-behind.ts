/**
 * When a turn's writes are stored (ADR 0048): the buffer of writes a worker accepted and has not stored yet, and
 * the schedule that stores them. Writes are stored in call order, several per commit: a write that ends the turn,
 * and every write once the turn is past its write-behind window, is stored at once (its promise settles when it
 * is); any other is accepted at once and stored at the end of the agent's burst (the next turn of the event
 * loop), with the writes after it. What a commit does with its slice of writes is the worker's (`commit`).
 */
import type { Clock } from '../../store/clock.js';

/**
 * The most writes one commit carries: an agent that emits thousands of chunks in one burst still streams them
 * in commits of a bounded size.
 */
export const MAX_WRITES_PER_COMMIT = 64;

const noop = (): void => undefined;

/** The buffer and schedule of one worker's writes; `S` is what one write is. */
export class WriteBehind<S> {
  /** Tail of the commit chain (never rejects): commits run one after another, in the order writes were made. */
  #chain: Promise<unknown> = Promise.resolve();
  /** Writes accepted and not yet handed to a commit, oldest first. */
  #buffer: S[] = [];
  /** The commit that will take the buffer, once the one in flight is done; undefined when none is queued. */
  #nextCommit: Promise<void> | undefined;
  /** A flush of the buffer at the end of the agent's current burst is scheduled. */
  #flushScheduled = false;
  #pendingEnd = false;
  #accepted = 0;
  readonly #startedAt: number;
  readonly #windowMs: number;

  /**
   * @param leaseMs the turn's lease: the write-behind window is its first third, from now
   * @param commit stores one slice of writes (at most `MAX_WRITES_PER_COMMIT`, oldest first), or throws
   */
  constructor(
    private readonly clock: Clock,
    leaseMs: number,
    private readonly commit: (writes: S[]) => Promise<void>,
  ) {
    this.#startedAt = clock.now();
    this.#windowMs = Math.floor(leaseMs / 3);
  }

  /** A write that ends the turn was accepted and is not yet stored (or refused): no write may follow it. */
  get pendingEnd(): boolean {
    return this.#pendingEnd;
  }

  /** Writes accepted in this turn, stored or not. */
  get accepted(): number {
    return this.#accepted;
  }

  /** Accepts `write`; resolves at once, or (it ends the turn, or the turn is not young) once it is stored. */
  accept(write: S, ends: boolean): Promise<void> {
    this.#accepted++;
    this.#buffer.push(write);
    if (ends) this.#pendingEnd = true;
    if (ends || this.#buffer.length >= MAX_WRITES_PER_COMMIT || !this.#young()) return this.flush();
    if (!this.#flushScheduled) {
      this.#flushScheduled = true;
      setImmediate(() => {
        this.#flushScheduled = false;
        // Its outcome is kept by the worker (stopped, or a lost write): the agent's next call reports it.
        this.flush().catch(noop);
      });
    }
    return Promise.resolve();
  }

  /**
   * Whether the turn is still inside its write-behind window: the first third of its lease, measured from when
   * the worker started. Within it no other worker can have taken the task over (that needs the lease to lapse),
   * so a write accepted before it is stored cannot have been fenced out by a takeover. A worker that was paused
   * past the window (a long GC, SIGSTOP) writes through again and learns at once that it lost the task.
   */
  #young(): boolean {
    return this.clock.now() - this.#startedAt < this.#windowMs;
  }

  /**
   * Stores every accepted write not yet stored, after the commits already under way; resolves when they are
   * stored. Writes accepted while an earlier commit is in flight all join the next one.
   */
  flush(): Promise<void> {
    if (this.#nextCommit) return this.#nextCommit;
    const next = this.#chain.then(() => {
      this.#nextCommit = undefined;
      return this.#storeBuffer();
    });
    this.#nextCommit = next;
    this.#chain = next.then(noop, noop);
    return next;
  }

  /** Stores every write accepted so far, and waits until all of them have settled (never rejects). */
  drain(): Promise<unknown> {
    if (this.#buffer.length > 0) void this.flush().catch(noop);
    return this.#chain;
  }

  /**
   * Stores the buffer in slices of at most `MAX_WRITES_PER_COMMIT`, oldest first, until it is empty (writes
   * accepted meanwhile included). After a slice that fails, nothing after it is stored.
   */
  async #storeBuffer(): Promise<void> {
    while (this.#buffer.length > 0) {
      try {
        await this.commit(this.#buffer.splice(0, MAX_WRITES_PER_COMMIT));
      } catch (err) {
        this.#buffer = [];
        throw err;
      } finally {
        if (this.#buffer.length === 0) this.#pendingEnd = false;
      }
    }
  }
}
