/**
 * Finished tasks in the order they finished, for eviction at the task cap and for the terminal TTL: take the
 * oldest, remove any, append, all in O(1). An insertion-ordered Map cannot do this: deleting from its front
 * leaves holes that every later walk from the front steps over until the table is rebuilt, and at the cap (one
 * eviction per new task) that cost about 44 µs per send with 100,000 tasks (ADR 0023). The links live on the
 * entries themselves, so queueing a task allocates nothing.
 */

/** What the queue needs of an entry: two links, owned by the queue. */
export interface Queued<T> {
  older: T | undefined;
  newer: T | undefined;
  queued: boolean;
}

export class TerminalQueue<T extends Queued<T>> {
  #oldest: T | undefined;
  #newest: T | undefined;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** The entry that finished first, if any. */
  get oldest(): T | undefined {
    return this.#oldest;
  }

  /** Appends `e` as the newest (moving it there if it was queued already). */
  push(e: T): void {
    if (e.queued) this.remove(e);
    e.older = this.#newest;
    e.newer = undefined;
    if (this.#newest) this.#newest.newer = e;
    else this.#oldest = e;
    this.#newest = e;
    e.queued = true;
    this.#size++;
  }

  /** Takes `e` out; nothing happens if it is not queued. */
  remove(e: T): void {
    if (!e.queued) return;
    if (e.older) e.older.newer = e.newer;
    else this.#oldest = e.newer;
    if (e.newer) e.newer.older = e.older;
    else this.#newest = e.older;
    e.older = e.newer = undefined;
    e.queued = false;
    this.#size--;
  }
}
