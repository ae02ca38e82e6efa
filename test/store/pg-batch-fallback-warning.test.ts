/**
 * A PostgreSQL batch statement that fails for a reason the store does not expect is said once per kind of error,
 * as a process warning (nothing is lost: every item ran alone, but a batch that keeps failing would silently cost
 * the group commit, ADR 0049). The failures batches meet in normal operation (a task id that exists, a deadlock
 * with another replica, a serialization failure) say nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { logBatchFallback } from '../../src/store/postgres/pg-group-commit.js';

const warnings: Error[] = [];
const onWarning = (w: Error) => warnings.push(w);

/** Collects the warnings `fn` emits (they arrive on the next tick). */
async function warningsOf(fn: () => void): Promise<Error[]> {
  warnings.length = 0;
  process.on('warning', onWarning);
  fn();
  await new Promise((r) => setImmediate(r));
  return [...warnings];
}
afterEach(() => {
  process.off('warning', onWarning);
});

const pgError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('logBatchFallback', () => {
  it('says nothing of the failures batches meet in normal operation', async () => {
    const seen = await warningsOf(() => {
      logBatchFallback('claims', pgError('23505', 'duplicate key value violates unique constraint'), 4);
      logBatchFallback('commits', pgError('40P01', 'deadlock detected'), 4);
      logBatchFallback('commits', pgError('40001', 'could not serialize access'), 4);
    });
    expect(seen).toEqual([]);
  });

  it('warns of an unexpected failure once per kind of statement and error code', async () => {
    const seen = await warningsOf(() => {
      for (let i = 0; i < 3; i++) logBatchFallback('claims', pgError('42P01', 'relation does not exist'), 5);
      logBatchFallback('commits', pgError('42P01', 'relation does not exist'), 7);
      logBatchFallback('claims', new Error('Connection terminated unexpectedly'), 2);
    });
    expect(seen.map((w) => [(w as Error & { code?: string }).code, w.message])).toEqual([
      [
        'A2A_ONCE_GROUP_COMMIT',
        'a2a-once PostgreSQL store: a batch of 5 claims failed (42P01: relation does not exist); each runs alone',
      ],
      [
        'A2A_ONCE_GROUP_COMMIT',
        'a2a-once PostgreSQL store: a batch of 7 commits failed (42P01: relation does not exist); each runs alone',
      ],
      [
        'A2A_ONCE_GROUP_COMMIT',
        'a2a-once PostgreSQL store: a batch of 2 claims failed (unknown: Connection terminated unexpectedly); each runs alone',
      ],
    ]);
  });
});
