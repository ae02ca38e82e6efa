/**
 * Time as the stores and the server see it. Every TTL, tombstone and retention rule reads this clock, so tests
 * can move time forward instead of sleeping.
 */

/** A source of the current time in epoch milliseconds. */
export interface Clock {
  now(): number;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => Date.now() };

/** A clock that only moves when told to; for tests and simulations. */
export class ManualClock implements Clock {
  #now: number;
  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#now = start;
  }
  now(): number {
    return this.#now;
  }
  /** Moves time forward by `ms`. */
  advance(ms: number): void {
    this.#now += ms;
  }
  /** Sets the time. */
  set(ms: number): void {
    this.#now = ms;
  }
}
