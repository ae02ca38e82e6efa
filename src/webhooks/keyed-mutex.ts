/**
 * A FIFO lock per key, in this process: deliveries for one task wait their turn, deliveries for other tasks do
 * not wait at all. A key's chain is forgotten once nobody holds or waits for it, so the map stays as small as the
 * number of tasks in flight.
 */
export class KeyedMutex {
  readonly #tails = new Map<string, Promise<void>>();

  /** Runs `fn` once every earlier `run` for `key` has settled. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const tail = previous.then(() => mine);
    this.#tails.set(key, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}
