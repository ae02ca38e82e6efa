/**
 * Wakes deliveries that arrived early (their predecessor not applied yet) when a task's last applied sequence
 * number moves in this process. Another process's progress is seen by polling, so a wait is always bounded.
 */
export class AdvanceSignal {
  readonly #waiters = new Map<string, Set<() => void>>();

  /** Resolves when `notify(key)` is called or after `ms`, whichever is first. */
  wait(key: string, ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      let set = this.#waiters.get(key);
      if (set === undefined) this.#waiters.set(key, (set = new Set()));
      const waiters = set;
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0 && this.#waiters.get(key) === waiters) this.#waiters.delete(key);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      waiters.add(done);
    });
  }

  /** Wakes every delivery waiting on `key`. */
  notify(key: string): void {
    const set = this.#waiters.get(key);
    if (set === undefined) return;
    for (const wake of [...set]) wake();
  }
}
