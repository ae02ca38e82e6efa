/**
 * Things that age, oldest first: finished tasks (terminal TTL, eviction at the cap), interrupted tasks (ended when
 * abandoned), live keys (expiry) and tombstones (their TTL). Every housekeeping pass takes from the oldest end
 * and stops at the first item too young, so its work is proportional to what it removes, wherever in the store
 * that is (ADR 0025), and take-oldest, remove-any and append are O(1).
 *
 * Intrusive: the links live on the items, so queueing allocates nothing (ADR 0023: an insertion-ordered Map was
 * the alternative, and deleting from its front leaves holes every later walk steps over). Items are almost always
 * appended newest (their time is the clock's now), so `push` walks back from the newest end only past items
 * that are younger: O(1) then, and still correct when the clock steps back or a caller passes an odd expiry.
 */

/** What a queue needs of an item: two links and which queue holds it, all owned by the queue. */
export interface Queued<T> {
  older: T | undefined;
  newer: T | undefined;
  queue: { remove(e: T): void } | undefined;
}

export class OrderedQueue<T extends Queued<T>> {
  #oldest: T | undefined;
  #newest: T | undefined;
  #size = 0;
  readonly #timeOf: (item: T) => number;

  /** `timeOf` gives an item's age reference (epoch ms); the queue keeps items in its order. */
  constructor(timeOf: (item: T) => number) {
    this.#timeOf = timeOf;
  }

  get size(): number {
    return this.#size;
  }

  /** The item with the earliest time, if any. */
  get oldest(): T | undefined {
    return this.#oldest;
  }

  /** Queues `e` in time order, taking it out of whichever queue held it first (a task moves between two). */
  push(e: T): void {
    e.queue?.remove(e);
    const t = this.#timeOf(e);
    let before = this.#newest;
    while (before !== undefined && this.#timeOf(before) > t) before = before.older;
    const after = before === undefined ? this.#oldest : before.newer;
    e.older = before;
    e.newer = after;
    if (before) before.newer = e;
    else this.#oldest = e;
    if (after) after.older = e;
    else this.#newest = e;
    e.queue = this;
    this.#size++;
  }

  /** Takes `e` out; nothing happens if this queue does not hold it. */
  remove(e: T): void {
    if (e.queue !== this) return;
    if (e.older) e.older.newer = e.newer;
    else this.#oldest = e.newer;
    if (e.newer) e.newer.older = e.older;
    else this.#newest = e.older;
    e.older = e.newer = undefined;
    e.queue = undefined;
    this.#size--;
  }
}
