/**
 * Process-local wake-ups for `watch`. A SQL store learns about commits of other processes only by polling; a commit
 * made through this store instance wakes its watchers at once instead of waiting for the next poll.
 */
import type { StoredTask } from '../records.js';
import type { Scope } from '../scope.js';

/**
 * A pending wait: resolves on the next `notify` of its task, with the record the commit wrote when the notifier
 * was given one (a local commit), undefined otherwise (a removal); `cancel` unregisters it.
 */
export interface PendingWake {
  readonly promise: Promise<StoredTask | undefined>;
  cancel(): void;
}

/** The notifier key of a task. */
export function taskKey(scope: Scope, taskId: string): string {
  return JSON.stringify([scope.tenant, scope.owner, taskId]);
}

/** Waiters keyed by task. */
export class EventNotifier {
  readonly #waiters = new Map<string, Set<(record: StoredTask | undefined) => void>>();

  /** Registers a waiter for the task's next commit or removal. Register before reading, so no wake is lost. */
  wait(key: string): PendingWake {
    let set = this.#waiters.get(key);
    if (!set) {
      set = new Set();
      this.#waiters.set(key, set);
    }
    const waiters = set;
    let done!: (record: StoredTask | undefined) => void;
    const promise = new Promise<StoredTask | undefined>((resolve) => {
      done = (record) => {
        this.#remove(key, waiters, done);
        resolve(record);
      };
    });
    waiters.add(done);
    return { promise, cancel: () => this.#remove(key, waiters, done) };
  }

  readonly #inflight = new Map<string, Promise<unknown>>();

  /**
   * Runs `read` once for all callers asking for the same `key` at the same time: many followers of one task
   * (a hundred blocking retries, a dozen subscribers) then cost one query per poll, not one each.
   */
  shared<T>(key: string, read: () => Promise<T>): Promise<T> {
    let p = this.#inflight.get(key) as Promise<T> | undefined;
    if (!p) {
      p = read().finally(() => this.#inflight.delete(key));
      this.#inflight.set(key, p);
    }
    return p;
  }

  /** Wakes every waiter of the task, handing them `record` when a commit of this process just wrote it. */
  notify(key: string, record?: StoredTask): void {
    const set = this.#waiters.get(key);
    if (!set) return;
    this.#waiters.delete(key);
    for (const w of [...set]) w(record);
  }

  #remove(
    key: string,
    set: Set<(record: StoredTask | undefined) => void>,
    fn: (record: StoredTask | undefined) => void,
  ): void {
    set.delete(fn);
    if (set.size === 0 && this.#waiters.get(key) === set) this.#waiters.delete(key);
  }
}

/** Resolves when `wake` resolves, after `ms`, or when `signal` aborts, whichever comes first; cleans up after. */
export function sleepUntilWoken(wake: Promise<unknown>, ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const finish = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', finish);
      resolve();
    };
    const timer = setTimeout(finish, ms);
    signal.addEventListener('abort', finish, { once: true });
    void wake.then(finish);
  });
}
