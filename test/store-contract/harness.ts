/**
 * What the contract suite needs from a backend: a fresh, empty store driven by a manual clock, and (for stores
 * shared across processes) a second store on the same database through its own connection, to race against.
 */
import { afterEach, beforeEach } from 'vitest';
import type { ManualClock } from '../../src/store/clock.js';
import type { TaskStore } from '../../src/store/task-store.js';
import type { DriverFaults } from './fixtures/driver-faults.js';

/** One fresh store for one test. */
export interface StoreHarness {
  readonly store: TaskStore;
  readonly clock: ManualClock;
  /** Opens another store on the same database (its own connection or pool), sharing `clock`. */
  readonly openPeer?: () => Promise<TaskStore>;
  /** Faults of `store`'s driver, armed by the lost-answer tests (`fixtures/driver-faults.ts`); idle otherwise. */
  readonly faults?: DriverFaults;
  cleanup(): Promise<void>;
}

/** Makes a fresh harness. */
export type MakeStore = () => Promise<StoreHarness>;

/** Registers before/after hooks giving each test its own harness; call the returned function inside a test. */
export function useStore(make: MakeStore): () => StoreHarness {
  let current: StoreHarness | undefined;
  beforeEach(async () => {
    current = await make();
  });
  afterEach(async () => {
    await current?.cleanup();
    current = undefined;
  });
  return () => {
    if (!current) throw new Error('no store: useStore hooks did not run');
    return current;
  };
}
