/**
 * ListTasks over the in-memory store (ADR 0025). Each scope keeps its listable tasks (task-kind records; direct
 * message replies are invisible to ListTasks) in ListTasks order (`task-order-index.ts`), maintained as tasks are
 * created, written and removed. A page is then a walk from its cursor, and `totalSize` (which A2A's ListTasks
 * returns, exact) is read or counted without sorting:
 * - no filter: the index size; `statusTimestampAfter` alone: a rank in the index (the matches are the newest);
 * - `status` alone: a count per state; with `statusTimestampAfter`: a walk over the newest part only;
 * - `contextId`: the context's own tasks, usually a handful, filtered and sorted as the contract defines.
 * The counts per state and the tasks per context cost something on every write (a Map entry per context), so a
 * scope gets them on its first ListTasks that filters by state or by context (one walk of the index) and keeps
 * them up to date from then on: a scope nobody lists that way, the common case, pays nothing on the send path.
 * The caller first drops tasks past the terminal TTL, so everything indexed is visible.
 */
import type { TaskState } from '../../protocol/task-state.js';
import { compareNewestFirst, decodePageToken, encodePageToken, type PagePosition } from '../page-token.js';
import type { StoredTask } from '../records.js';
import type { TaskPage, TaskQuery } from '../task-store.js';
import type { TaskEntry } from './memory-partition.js';
import { TaskOrderIndex, timestampOf } from './task-order-index.js';

const pos = (r: StoredTask): PagePosition => ({ timestamp: r.task.status.timestamp ?? '', id: r.task.id });

/** One scope's listable tasks, in order, with what the filters need. */
export class ListedTasks {
  readonly #order = new TaskOrderIndex();
  /** Listed tasks per state; made by the first ListTasks filtering by state. */
  #perState: Map<TaskState, number> | undefined = undefined;
  /**
   * Listed tasks per context, made by the first ListTasks filtering by context: the entry itself while it is the
   * only one (most contexts), an array from the second.
   */
  #perContext: Map<string, TaskEntry | TaskEntry[]> | undefined = undefined;

  get size(): number {
    return this.#order.size;
  }

  /** Lists `e` under its current record. */
  add(e: TaskEntry): void {
    this.#order.insert(e);
    this.#countState(e.record.task.status.state, 1);
    this.#addToContext(e, e.record.task.contextId);
  }

  /** Unlists `e`, listed under its current record (call before replacing the record). */
  remove(e: TaskEntry): void {
    if (!this.#order.remove(e)) return;
    this.#countState(e.record.task.status.state, -1);
    this.#removeFromContext(e, e.record.task.contextId);
  }

  /**
   * Gives listed `e` its next record, touching only what changed: a write that keeps the status timestamp (an
   * artifact, or a state change within the same millisecond) does not move in the order at all.
   */
  update(e: TaskEntry, next: StoredTask): void {
    const prev = e.record.task;
    const task = next.task;
    const moves = prev.status.timestamp !== task.status.timestamp || prev.id !== task.id;
    if (moves) this.#order.remove(e);
    e.record = next;
    if (moves) this.#order.insert(e);
    if (prev.status.state !== task.status.state) {
      this.#countState(prev.status.state, -1);
      this.#countState(task.status.state, 1);
    }
    if (prev.contextId !== task.contextId) {
      this.#removeFromContext(e, prev.contextId);
      this.#addToContext(e, task.contextId);
    }
  }

  #countState(state: TaskState, delta: number): void {
    const perState = this.#perState;
    if (perState === undefined) return;
    const n = (perState.get(state) ?? 0) + delta;
    if (n > 0) perState.set(state, n);
    else perState.delete(state);
  }

  #addToContext(e: TaskEntry, ctx: string | undefined): void {
    const perContext = this.#perContext;
    if (perContext === undefined || ctx === undefined) return;
    const had = perContext.get(ctx);
    if (had === undefined) perContext.set(ctx, e);
    else if (Array.isArray(had)) had.push(e);
    else perContext.set(ctx, [had, e]);
  }

  #removeFromContext(e: TaskEntry, ctx: string | undefined): void {
    const perContext = this.#perContext;
    if (perContext === undefined || ctx === undefined) return;
    const had = perContext.get(ctx);
    if (had === e) perContext.delete(ctx);
    else if (Array.isArray(had)) {
      const i = had.indexOf(e);
      if (i >= 0) had.splice(i, 1);
      if (had.length === 1) perContext.set(ctx, had[0]!);
    }
  }

  /** The counts per state, made from the index on first use. */
  #stateCounts(): Map<TaskState, number> {
    if (this.#perState === undefined) {
      this.#perState = new Map();
      this.#order.walkNewestFirst(undefined, (e) => {
        this.#countState(e.record.task.status.state, 1);
        return true;
      });
    }
    return this.#perState;
  }

  /** The tasks per context, made from the index on first use. */
  #contexts(): Map<string, TaskEntry | TaskEntry[]> {
    if (this.#perContext === undefined) {
      this.#perContext = new Map();
      this.#order.walkNewestFirst(undefined, (e) => {
        this.#addToContext(e, e.record.task.contextId);
        return true;
      });
    }
    return this.#perContext;
  }

  /** One page for `query`. Throws InvalidParamsError for a token this server did not issue. */
  page(query: TaskQuery): TaskPage {
    const after = query.pageToken === undefined ? undefined : decodePageToken(query.pageToken);
    if (query.contextId !== undefined) return this.#contextPage(query, after);
    const { status, statusTimestampAfter: from, pageSize } = query;
    const records: StoredTask[] = [];
    let more = false;
    this.#order.walkNewestFirst(after, (e) => {
      if (from !== undefined && timestampOf(e) < from) return false;
      if (status !== undefined && e.record.task.status.state !== status) return true;
      if (records.length >= pageSize) {
        more = true;
        return false;
      }
      records.push(e.record);
      return true;
    });
    const last = records[records.length - 1];
    return {
      records,
      nextPageToken: more && last ? encodePageToken(pos(last)) : '',
      totalSize: this.#count(status, from),
    };
  }

  #count(status: TaskState | undefined, from: string | undefined): number {
    if (status === undefined) return from === undefined ? this.#order.size : this.#order.countFrom(from);
    if (from === undefined) return this.#stateCounts().get(status) ?? 0;
    let n = 0;
    this.#order.walkNewestFirst(undefined, (e) => {
      if (timestampOf(e) < from) return false;
      if (e.record.task.status.state === status) n++;
      return true;
    });
    return n;
  }

  /** A context's page: its few tasks filtered and sorted the way the contract defines ListTasks. */
  #contextPage(query: TaskQuery, after: PagePosition | undefined): TaskPage {
    const had = this.#contexts().get(query.contextId!);
    const entries = had === undefined ? [] : Array.isArray(had) ? had : [had];
    const matches: StoredTask[] = [];
    for (const e of entries) {
      const t = e.record.task;
      if (query.status !== undefined && t.status.state !== query.status) continue;
      if (query.statusTimestampAfter !== undefined && (t.status.timestamp ?? '') < query.statusTimestampAfter)
        continue;
      matches.push(e.record);
    }
    matches.sort((a, b) => compareNewestFirst(pos(a), pos(b)));
    const start = after === undefined ? 0 : matches.findIndex((r) => compareNewestFirst(pos(r), after) > 0);
    const from = start === -1 ? matches.length : start;
    const records = matches.slice(from, from + query.pageSize);
    const last = records[records.length - 1];
    const more = from + query.pageSize < matches.length;
    return {
      records,
      nextPageToken: more && last ? encodePageToken(pos(last)) : '',
      totalSize: matches.length,
    };
  }
}

/** The page of a scope that has never listed a task: empty, but a bad token is still refused. */
export function emptyPage(query: TaskQuery): TaskPage {
  if (query.pageToken !== undefined) decodePageToken(query.pageToken);
  return { records: [], nextPageToken: '', totalSize: 0 };
}
