/**
 * The memory store's ListTasks order (`task-order-index.ts`, ADR 0025) against a plain sorted array, over
 * histories long enough to span many blocks, with few distinct timestamps so that most inserts tie with the
 * newest one and land inside the last block (the short walk back, ADR 0140) rather than at its end.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TaskEntry } from '../../../src/store/memory/memory-partition.js';
import { TaskOrderIndex } from '../../../src/store/memory/task-order-index.js';

/** An entry as the index reads it: only its record's task id and status timestamp. */
function entry(id: string, timestamp: string): TaskEntry {
  return { record: { task: { id, status: { timestamp } } } } as unknown as TaskEntry;
}

const keyOf = (e: TaskEntry) => `${e.record.task.status.timestamp}\u0000${e.record.task.id}`;

function newestFirst(index: TaskOrderIndex, after?: { timestamp: string; id: string }): string[] {
  const seen: string[] = [];
  index.walkNewestFirst(after, (e) => (seen.push(e.record.task.id), true));
  return seen;
}

type Op = { op: 'add'; stamp: number; id: number } | { op: 'remove'; pick: number };

const arbOp: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      op: fc.constant('add' as const),
      // Timestamps mostly climb, as a clock does, with many ties (a burst of sends in one millisecond).
      stamp: fc.integer({ min: -2, max: 1 }),
      id: fc.integer({ min: 0, max: 1_000_000 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('remove' as const), pick: fc.nat() }) },
);

describe('TaskOrderIndex', () => {
  it('keeps (timestamp, id) order across many blocks when most inserts tie with the newest (property)', () => {
    fc.assert(
      fc.property(fc.array(arbOp, { minLength: 300, maxLength: 1500 }), (ops) => {
        const index = new TaskOrderIndex();
        const live = new Map<string, TaskEntry>();
        let clock = 100;
        for (const op of ops) {
          if (op.op === 'add') {
            clock = Math.max(100, clock + op.stamp);
            const id = `t${String(op.id).padStart(7, '0')}`;
            if (live.has(id)) continue;
            const e = entry(id, `2026-12-06T00:00:00.${String(clock % 1000).padStart(3, '0')}Z`);
            index.insert(e);
            live.set(id, e);
          } else if (live.size > 0) {
            const all = [...live.values()];
            const e = all[op.pick % all.length]!;
            expect(index.remove(e)).toBe(true);
            live.delete(e.record.task.id);
          }
        }
        const expected = [...live.values()].sort((a, b) => (keyOf(a) < keyOf(b) ? 1 : -1));
        expect(index.size).toBe(live.size);
        expect(newestFirst(index)).toEqual(expected.map((e) => e.record.task.id));
        // A cursor in the middle starts strictly after it; a count from a timestamp counts the newest.
        const mid = expected[Math.floor(expected.length / 2)];
        if (mid !== undefined) {
          const ts = mid.record.task.status.timestamp!;
          const after = newestFirst(index, { timestamp: ts, id: mid.record.task.id });
          expect(after).toEqual(expected.slice(expected.indexOf(mid) + 1).map((e) => e.record.task.id));
          expect(index.countFrom(ts)).toBe(
            expected.filter((e) => e.record.task.status.timestamp! >= ts).length,
          );
        }
      }),
      { numRuns: 60 },
    );
  });

  it('finds the slot of a tie inside a short last block, and of one that belongs before the whole of it', () => {
    const index = new TaskOrderIndex();
    const ts = '2026-12-06T00:00:00.500Z';
    // 260 appends in one millisecond: a full first block and a last block of 4 entries.
    const ids = Array.from({ length: 260 }, (_, i) => `m${String(i * 2 + 10).padStart(5, '0')}`);
    for (const id of ids) index.insert(entry(id, ts));
    // Inside the last block, before all of it but after the first block, and deep inside the first block.
    for (const id of ['m00525', 'm00519', 'm00517', 'm00011', 'm00001']) {
      index.insert(entry(id, ts));
      ids.push(id);
    }
    index.insert(entry('z-older', '2026-12-06T00:00:00.100Z'));
    expect(newestFirst(index)).toEqual([...ids.sort().reverse(), 'z-older']);
  });
});
