/** The contract suite against the in-memory store. */
import { ManualClock } from '../../src/store/clock.js';
import { MemoryTaskStore } from '../../src/store/memory/index.js';
import { describeTaskStoreContract } from './contract.js';
import { DriverFaults, faultyMemoryStore } from './fixtures/driver-faults.js';

describeTaskStoreContract('memory', () => {
  const clock = new ManualClock();
  // The memory store's own amortised sweep drops terminal tasks after a day; retention here is purgeExpired only.
  const memory = new MemoryTaskStore({ clock, terminalTaskTtlMs: Number.MAX_SAFE_INTEGER });
  // No driver to wrap: the lost-answer faults apply to the store's own write calls (idle unless armed).
  const faults = new DriverFaults();
  const store = faultyMemoryStore(memory, faults);
  return Promise.resolve({ store, clock, faults, cleanup: () => store.close() });
});
