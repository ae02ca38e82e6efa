/**
 * Contract: `tryLead(role, holder, ttlMs)`, leadership for periodic work (the retention schedule) among the
 * processes sharing a store (ADR 0028). Where the store is shared (`capabilities.sharedAcrossProcesses`), one
 * holder wins among any number racing, the holder renews, and another takes over only once the lease lapsed. A
 * store only one process can use has nobody to exclude and always answers true.
 */
import { describe, expect, it } from 'vitest';
import type { TaskStore } from '../../src/store/task-store.js';
import { HOUR } from './fixtures/tasks.js';
import type { MakeStore, StoreHarness } from './harness.js';
import { useStore } from './harness.js';

const RACERS = 64;
const TTL = 30_000;

/** The stores to race on: the harness store, plus a peer on the same database where the backend has one. */
async function racers(h: StoreHarness): Promise<{ stores: TaskStore[]; close: () => Promise<void> }> {
  if (!h.openPeer) return { stores: [h.store], close: () => Promise.resolve() };
  const peer = await h.openPeer();
  return { stores: [h.store, peer], close: () => peer.close() };
}

/** Registers the leadership tests. */
export function leadContract(make: MakeStore): void {
  const h = useStore(make);

  describe('tryLead', () => {
    it('lets a holder lead and renew', async () => {
      const { store, clock } = h();
      expect(await store.tryLead('retention', 'replica-a', TTL)).toBe(true);
      clock.advance(TTL - 1);
      expect(await store.tryLead('retention', 'replica-a', TTL)).toBe(true);
      // Renewed: the lease now runs from the renewal, past the first lease's end.
      clock.advance(TTL - 1);
      expect(await store.tryLead('retention', 'replica-a', TTL)).toBe(true);
    });

    it('excludes another holder until the lease lapsed, then hands over', async () => {
      const { store, clock } = h();
      const shared = store.capabilities.sharedAcrossProcesses;
      expect(await store.tryLead('retention', 'replica-a', TTL)).toBe(true);
      const start = clock.now();
      clock.set(start + TTL - 1);
      expect(await store.tryLead('retention', 'replica-b', TTL)).toBe(!shared);
      if (!shared) return; // one process: nobody to exclude
      // Another role is another lease.
      expect(await store.tryLead('webhooks', 'replica-b', TTL)).toBe(true);
      clock.set(start + TTL); // the lease ends at start + TTL: lapsed from that instant
      expect(await store.tryLead('retention', 'replica-b', TTL)).toBe(true);
      expect(await store.tryLead('retention', 'replica-a', TTL)).toBe(false);
      clock.advance(TTL - 1);
      expect(await store.tryLead('retention', 'replica-a', TTL)).toBe(false);
      expect(await store.tryLead('retention', 'replica-b', TTL)).toBe(true);
    });

    it(`gives the lease to exactly one of ${RACERS} racing holders, first and after a lapse`, async () => {
      const { stores, close } = await racers(h());
      try {
        const { store, clock } = h();
        const race = () =>
          Promise.all(
            Array.from({ length: RACERS }, (_, i) =>
              stores[i % stores.length]!.tryLead('retention', `replica-${i}`, HOUR),
            ),
          );
        const first = await race();
        if (!store.capabilities.sharedAcrossProcesses) {
          expect(first.every(Boolean)).toBe(true);
          return;
        }
        expect(first.filter(Boolean)).toHaveLength(1);
        const leader = first.indexOf(true);
        // While the lease lasts, everybody but the leader keeps losing.
        clock.advance(HOUR - 1);
        const again = await race();
        expect(again.flatMap((won, i) => (won ? [i] : []))).toEqual([leader]);
        // Lapsed: exactly one takes over (the old leader may be among the racers and win again).
        clock.advance(HOUR + 1);
        expect((await race()).filter(Boolean)).toHaveLength(1);
      } finally {
        await close();
      }
    });
  });
}
