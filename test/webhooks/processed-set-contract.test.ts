/**
 * The processed-set contract (src/webhooks/processed-set.ts), one suite over memory, SQLite and PostgreSQL:
 * recording, rolling back on a throw (with what was written through `tx`), serialising one task across instances,
 * independence of scopes and tasks, and retention.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { OpenSet } from './set-backends.js';
import { SET_BACKENDS, endSetBackends } from './set-backends.js';

afterAll(endSetBackends);

describe.each(SET_BACKENDS)('processed-set contract: $name', (backend) => {
  let open: OpenSet<unknown> | undefined;
  afterEach(async () => {
    await open?.close();
    open = undefined;
  });
  const fresh = async () => (open = await backend.open());

  it('a task never seen reads 0; a recorded seq is read back, by this instance and another', async () => {
    const { set, twin } = await fresh();
    expect(await set.lastSeq('', 't1')).toBe(0);
    const r = await set.withEntry('', 't1', (e) =>
      Promise.resolve({ recordSeq: e.lastSeq + 1, result: e.lastSeq }),
    );
    expect(r).toBe(0);
    expect(await set.lastSeq('', 't1')).toBe(1);
    const other = await twin();
    expect(await other.withEntry('', 't1', (e) => Promise.resolve({ result: e.lastSeq }))).toBe(1);
  });

  it('no recordSeq changes nothing', async () => {
    const { set } = await fresh();
    await set.withEntry('', 't1', () => Promise.resolve({ result: undefined }));
    expect(await set.lastSeq('', 't1')).toBe(0);
  });

  it('a throw records nothing, rethrows, and rolls back what was written through tx', async () => {
    const o = await fresh();
    const boom = new Error('boom');
    await expect(
      o.set.withEntry('', 't1', async (e) => {
        await o.note(e.tx, { taskId: 't1', seq: 1, label: 'written then thrown' });
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(await o.set.lastSeq('', 't1')).toBe(0);
    if (o.joins) expect(await o.notes()).toEqual([]);
    // And a write through tx with a record commits together.
    await o.set.withEntry('', 't1', async (e) => {
      await o.note(e.tx, { taskId: 't1', seq: 1, label: 'kept' });
      return { recordSeq: 1, result: undefined };
    });
    expect(await o.set.lastSeq('', 't1')).toBe(1);
    if (o.joins) expect(await o.notes()).toEqual([{ taskId: 't1', seq: 1, label: 'kept' }]);
  });

  it('scopes and tasks are independent', async () => {
    const { set } = await fresh();
    await set.withEntry('a', 't1', () => Promise.resolve({ recordSeq: 5, result: undefined }));
    await set.withEntry('b', 't1', () => Promise.resolve({ recordSeq: 2, result: undefined }));
    await set.withEntry('a', 't2', () => Promise.resolve({ recordSeq: 9, result: undefined }));
    expect([
      await set.lastSeq('a', 't1'),
      await set.lastSeq('b', 't1'),
      await set.lastSeq('a', 't2'),
    ]).toEqual([5, 2, 9]);
  });

  it('read-increment-record races on one task, over two instances, lose no update', async () => {
    const { set, twin } = await fresh();
    const other = await twin();
    const bump = (s: typeof set) =>
      s.withEntry('', 'race', async (e) => {
        // A pause inside the lock: without it being held, the increments would interleave and be lost.
        await new Promise((r) => setTimeout(r, 1));
        return { recordSeq: e.lastSeq + 1, result: undefined };
      });
    await Promise.all(Array.from({ length: 30 }, (_, i) => bump(i % 2 === 0 ? set : other)));
    expect(await set.lastSeq('', 'race')).toBe(30);
  });

  it('other tasks do not wait for a held task, unless the storage has one connection', async () => {
    const { set, oneAtATime } = await fresh();
    let release!: () => void;
    const held = set.withEntry('', 'slow', async () => {
      await new Promise<void>((r) => (release = r));
      return { recordSeq: 1, result: undefined };
    });
    await new Promise((r) => setTimeout(r, 20));
    const other = set.withEntry('', 'fast', () => Promise.resolve({ recordSeq: 1, result: 'done' }));
    if (oneAtATime) {
      // One connection, one transaction: the other task waits its turn, and still completes.
      release();
      expect(await other).toBe('done');
    } else {
      expect(await other).toBe('done');
      release();
    }
    await held;
    expect(await set.lastSeq('', 'slow')).toBe(1);
  });

  it('purge drops entries not written for the TTL, and keeps the rest', async () => {
    const { set } = await fresh();
    await set.withEntry('', 'old', () => Promise.resolve({ recordSeq: 3, result: undefined }));
    await new Promise((r) => setTimeout(r, 30));
    await set.withEntry('', 'new', () => Promise.resolve({ recordSeq: 4, result: undefined }));
    expect(await set.purge(20)).toBe(1);
    expect(await set.lastSeq('', 'old')).toBe(0);
    expect(await set.lastSeq('', 'new')).toBe(4);
    expect(await set.purge(60_000)).toBe(0);
  });
});
