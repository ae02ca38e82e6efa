/** The contract suite against the in-memory store. */
import { ManualClock } from '../../src/store/clock.js';
import { MemoryTaskStore } from '../../src/store/memory/index.js';
import { describeTaskStoreContract } from './contract.js';

describeTaskStoreContract('memory', () => {
  const clock = new ManualClock();
  // The memory store's own amortised sweep drops terminal tasks after a day; retention here is purgeExpired only.
  const store = new MemoryTaskStore({ clock, terminalTaskTtlMs: Number.MAX_SAFE_INTEGER });
  return Promise.resolve({ store, clock, cleanup: () => store.close() });
});
