/**
 * A scope's listable tasks kept in ListTasks order, so a page is a walk from its cursor instead of a copy and
 * sort of the whole scope on every call (ADR 0025): at 100,000 tasks that sort cost tens of milliseconds.
 *
 * Stored ascending by (status timestamp, id) and walked backwards, because ListTasks wants newest first and new
 * or just-updated tasks carry the newest timestamp: the common insert is an append at the very end, or a short
 * walk back from it when the task ties with the newest millisecond (ADR 0140). The order is
 * a list of sorted blocks of at most `BLOCK` entries (a B-tree one level deep): insert and remove are a binary
 * search over block ends, one within the block and a short splice, so O(log n) plus a bounded move, and nothing
 * is allocated per task (entries are the store's own `TaskEntry` objects, keys are read from their records).
 */
import type { TaskEntry } from './memory-partition.js';

const BLOCK = 256;
/** How many of the newest entries (and a quarter as many of the oldest) `remove` checks before it searches. */
const NEAR = 32;

/** The position key of an entry: its record's status timestamp ('' when it has none) and task id. */
export function timestampOf(e: TaskEntry): string {
  return e.record.task.status.timestamp ?? '';
}

/** Ascending (timestamp, id) comparison of an entry with a position. */
function compareTo(e: TaskEntry, timestamp: string, id: string): number {
  const ts = timestampOf(e);
  if (ts !== timestamp) return ts < timestamp ? -1 : 1;
  const eid = e.record.task.id;
  if (eid !== id) return eid < id ? -1 : 1;
  return 0;
}

export class TaskOrderIndex {
  readonly #blocks: TaskEntry[][] = [];
  #size = 0;
  /**
   * Where the last search landed: block `#atBlock`, index `#atIndex` within it (which may equal the block's
   * length). Fields rather than a returned `{ b, i }`: searches run on every write, and garbage is what costs.
   */
  #atBlock = 0;
  #atIndex = 0;

  get size(): number {
    return this.#size;
  }

  /** Finds the first slot holding a position >= (timestamp, id), past the end when there is none. */
  #lowerBound(timestamp: string, id: string): void {
    const blocks = this.#blocks;
    let lo = 0;
    let hi = blocks.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const block = blocks[mid]!;
      if (compareTo(block[block.length - 1]!, timestamp, id) < 0) lo = mid + 1;
      else hi = mid;
    }
    this.#atBlock = lo;
    this.#atIndex = 0;
    if (lo === blocks.length) return;
    const block = blocks[lo]!;
    let l = 0;
    let h = block.length;
    while (l < h) {
      const m = (l + h) >>> 1;
      if (compareTo(block[m]!, timestamp, id) < 0) l = m + 1;
      else h = m;
    }
    this.#atIndex = l;
  }

  /** Adds `e` at the position of its current record. */
  insert(e: TaskEntry): void {
    const ts = timestampOf(e);
    const id = e.record.task.id;
    const blocks = this.#blocks;
    this.#size++;
    const last = blocks[blocks.length - 1];
    // The common case: the newest position of all, appended to the last block.
    if (last === undefined || compareTo(last[last.length - 1]!, ts, id) < 0) {
      if (last === undefined || last.length >= BLOCK) blocks.push([e]);
      else last.push(e);
      return;
    }
    if (!this.#nearTail(last, ts, id)) this.#lowerBound(ts, id);
    const b = this.#atBlock;
    const i = this.#atIndex;
    const block = blocks[b]!;
    block.splice(i, 0, e);
    if (block.length > BLOCK) blocks.splice(b + 1, 0, block.splice(BLOCK >>> 1));
  }

  /**
   * Where (timestamp, id) goes when that is among the newest `NEAR` entries of the last block, which is where a
   * task created in the same millisecond as the newest lands about half the time (ids are random): a walk back
   * over a few entries written moments ago, where a binary search of the whole index probes entries spread over
   * the heap (about 2% of a keyed send's CPU at 100,000 stored tasks). Sets the slot and says whether it found it.
   */
  #nearTail(last: TaskEntry[], timestamp: string, id: string): boolean {
    // The caller knows the last entry sorts at or after the position: walk back to the first one that does (the
    // lower bound, as `#lowerBound` finds it).
    let i = last.length - 1;
    const stop = Math.max(0, i - NEAR);
    while (i > stop && compareTo(last[i - 1]!, timestamp, id) >= 0) i--;
    if (i > 0 && i === stop && compareTo(last[i - 1]!, timestamp, id) >= 0) return false;
    if (i === 0 && this.#blocks.length > 1) {
      // The position may belong before the whole last block: only a search over the blocks can say where.
      const prev = this.#blocks[this.#blocks.length - 2]!;
      if (compareTo(prev[prev.length - 1]!, timestamp, id) >= 0) return false;
    }
    return this.#at(this.#blocks.length - 1, i);
  }

  /** Removes `e`, which must sit at the position of its current record; false if it is not there. */
  remove(e: TaskEntry): boolean {
    if (!this.#nearEnds(e)) this.#lowerBound(timestampOf(e), e.record.task.id);
    const b = this.#atBlock;
    const i = this.#atIndex;
    const block = this.#blocks[b];
    if (block?.[i] !== e) return false;
    // At either end without moving the rest: the oldest entry goes on every eviction at the task cap, and V8
    // trims an array's front in place on `shift`.
    if (i === 0) block.shift();
    else if (i === block.length - 1) block.pop();
    else block.splice(i, 1);
    this.#size--;
    const blocks = this.#blocks;
    if (block.length === 0) {
      if (b === 0) blocks.shift();
      else blocks.splice(b, 1);
    } else if (b > 0 && b < blocks.length - 1 && block.length < BLOCK >>> 3) {
      // Only inner blocks are merged: the first drains as the oldest go, the last refills as tasks are written.
      this.#mergeSmall(b);
    }
    return true;
  }

  /**
   * Where `e` is when it is among the newest few entries, where a task being written almost always is (created
   * or last written moments ago), or the oldest few, where a task evicted or expired is: sets the slot and says
   * whether it found `e`.
   * Compares identities only: a binary search reads the timestamp and id of every entry it probes, each a chain
   * of loads from objects spread over the heap.
   */
  #nearEnds(e: TaskEntry): boolean {
    const blocks = this.#blocks;
    // The oldest few first: checking them costs a handful of compares, and eviction removes there on every send.
    const first = blocks[0];
    if (first !== undefined) {
      const n = Math.min(first.length, NEAR >>> 2);
      for (let i = 0; i < n; i++) if (first[i] === e) return this.#at(0, i);
    }
    let looked = 0;
    for (let b = blocks.length - 1; b >= 0 && looked < NEAR; b--) {
      const block = blocks[b]!;
      for (let i = block.length - 1; i >= 0 && looked < NEAR; i--, looked++)
        if (block[i] === e) return this.#at(b, i);
    }
    return false;
  }

  #at(b: number, i: number): true {
    this.#atBlock = b;
    this.#atIndex = i;
    return true;
  }

  /** Folds a nearly empty block into a neighbour, so removals cannot leave a long run of tiny blocks. */
  #mergeSmall(b: number): void {
    const blocks = this.#blocks;
    const block = blocks[b]!;
    const next = blocks[b + 1];
    if (next && next.length + block.length <= BLOCK) {
      blocks[b + 1] = block.concat(next);
      blocks.splice(b, 1);
      return;
    }
    const prev = blocks[b - 1];
    if (prev && prev.length + block.length <= BLOCK) {
      prev.push(...block);
      blocks.splice(b, 1);
    }
  }

  /** How many entries have a status timestamp at or after `timestamp` (the newest ones). */
  countFrom(timestamp: string): number {
    // '' sorts before every id, so this is the first entry whose timestamp is >= `timestamp`.
    this.#lowerBound(timestamp, '');
    let before = this.#atIndex;
    for (let k = 0; k < this.#atBlock; k++) before += this.#blocks[k]!.length;
    return this.#size - before;
  }

  /**
   * Visits entries newest first, starting strictly after the cursor position (every entry when there is none),
   * until `visit` returns false.
   */
  walkNewestFirst(
    after: { timestamp: string; id: string } | undefined,
    visit: (e: TaskEntry) => boolean,
  ): void {
    const blocks = this.#blocks;
    let b: number;
    let i: number;
    if (after === undefined) {
      b = blocks.length - 1;
      i = (blocks[b]?.length ?? 0) - 1;
    } else {
      // Newest first means descending: entries after the cursor are those before its lower bound.
      this.#lowerBound(after.timestamp, after.id);
      b = this.#atBlock;
      i = this.#atIndex - 1;
    }
    for (; b >= 0; b--) {
      const block = blocks[b];
      // `block` is undefined only when the cursor is past every entry: start from the end of the one before.
      if (block !== undefined) {
        for (let k = Math.min(i, block.length - 1); k >= 0; k--) if (!visit(block[k]!)) return;
      }
      i = Number.MAX_SAFE_INTEGER;
    }
  }
}
