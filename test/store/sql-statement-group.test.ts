/**
 * The statement group of the connection-backed stores (ADR 0049): a caller alone goes at once with the single
 * statement; callers arriving while one is in flight go together in one batch statement; whatever a batch does not
 * settle, and every item of a batch that threw, runs alone and gets its own outcome or error; two items of one key
 * are never in flight together, and keep their order. Driven by a fake database whose statements the test ends
 * by hand, so what is in flight at each moment is exact.
 */
import { describe, expect, it } from 'vitest';
import { StatementGroup, type StatementGroupOptions } from '../../src/store/sql/statement-group.js';

interface Item {
  readonly key: string;
  readonly n: number;
}

/** A statement the test has not answered yet. */
interface Sent {
  readonly kind: 'one' | 'many';
  readonly items: readonly Item[];
  answer(value?: unknown): void;
  fail(err: Error): void;
}

function fakeDb(overrides: Partial<StatementGroupOptions<Item, string>> = {}) {
  const sent: Sent[] = [];
  const statement = <T>(kind: 'one' | 'many', items: readonly Item[]) =>
    new Promise<T>((resolve, reject) => {
      sent.push({ kind, items, answer: (v) => resolve(v as T), fail: reject });
    });
  const group = new StatementGroup<Item, string>({
    runOne: (item) => statement<string>('one', [item]),
    runMany: (items) => statement<(string | undefined)[]>('many', items),
    ...overrides,
  });
  /** Lets the group react to what was answered (its continuations are a few microtasks deep). */
  const settle = () => new Promise((r) => setImmediate(r));
  return { group, sent, settle };
}

const item = (n: number, key = `k${n}`): Item => ({ key, n });

describe('StatementGroup', () => {
  it('sends a caller alone at once, with the single statement', async () => {
    const { group, sent, settle } = fakeDb();
    const a = group.run(item(1));
    await settle();
    expect(sent.map((s) => s.kind)).toEqual(['one']);
    sent[0]!.answer('a');
    expect(await a).toBe('a');
    expect(group.batches).toBe(0);
  });

  it('batches the callers that arrive while a statement is in flight, into one statement', async () => {
    const { group, sent, settle } = fakeDb();
    const first = group.run(item(1));
    const rest = [2, 3, 4].map((n) => group.run(item(n)));
    await settle();
    expect(sent).toHaveLength(1);
    sent[0]!.answer('r1');
    await settle();
    expect(sent).toHaveLength(2);
    expect(sent[1]).toMatchObject({ kind: 'many', items: [item(2), item(3), item(4)] });
    sent[1]!.answer(['r2', 'r3', 'r4']);
    expect(await first).toBe('r1');
    expect(await Promise.all(rest)).toEqual(['r2', 'r3', 'r4']);
    expect(group.batches).toBe(1);
    expect(group.largestBatch).toBe(3);
  });

  it('with settleTurns, waits while callers keep arriving, then sends them all in one statement', async () => {
    const { group, sent, settle } = fakeDb({ settleTurns: 4 });
    const calls = [group.run(item(1)), group.run(item(2))];
    await settle();
    expect(sent).toHaveLength(0); // the batch grew in its first turn: it waits for another
    calls.push(group.run(item(3)));
    await settle();
    expect(sent).toHaveLength(0);
    await settle();
    await settle();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ kind: 'many', items: [item(1), item(2), item(3)] });
    sent[0]!.answer(['r1', 'r2', 'r3']);
    expect(await Promise.all(calls)).toEqual(['r1', 'r2', 'r3']);
  });

  it('with settleTurns, a steady stream of callers is sent after at most settleTurns turns', async () => {
    const { group, sent, settle } = fakeDb({ settleTurns: 2 });
    const calls = [group.run(item(0))];
    let turns = 0;
    while (sent.length === 0 && turns < 20) {
      await settle();
      turns++;
      calls.push(group.run(item(turns)));
    }
    expect(sent).toHaveLength(1);
    expect(turns).toBeLessThanOrEqual(4);
    // Whatever came after the batch went out queues behind it, as without settling: answer until all are done.
    let answered = 0;
    while (answered < sent.length || sent.length === 0) {
      const s = sent[answered++]!;
      s.answer(s.kind === 'one' ? `r${s.items[0]!.n}` : s.items.map((i) => `r${i.n}`));
      for (let k = 0; k < 6 && answered === sent.length; k++) await settle();
    }
    expect(await Promise.all(calls)).toEqual(calls.map((_, n) => `r${n}`));
  });

  it('runs alone what the batch left unsettled, and only that', async () => {
    const { group, sent, settle } = fakeDb();
    const first = group.run(item(1));
    const rest = [2, 3, 4].map((n) => group.run(item(n)));
    await settle();
    sent[0]!.answer('r1');
    await settle();
    sent[1]!.answer(['r2', undefined, 'r4']);
    await settle();
    expect(sent.slice(2)).toMatchObject([{ kind: 'one', items: [item(3)] }]);
    sent[2]!.answer('r3 alone');
    expect(await Promise.all([first, ...rest])).toEqual(['r1', 'r2', 'r3 alone', 'r4']);
  });

  it('when a batch statement throws, runs each of its items alone: each gets its own outcome or error', async () => {
    const failures: [unknown, number][] = [];
    const { group, sent, settle } = fakeDb({ onBatchError: (err, size) => failures.push([err, size]) });
    const first = group.run(item(1));
    const rest = [2, 3, 4].map((n) => group.run(item(n)));
    const outcomes = rest.map((p) => p.then(String, (err: Error) => `error: ${err.message}`));
    await settle();
    sent[0]!.answer('r1');
    await settle();
    const boom = new Error('duplicate task id');
    sent[1]!.fail(boom);
    await settle();
    expect(failures).toEqual([[boom, 3]]);
    expect(group.failedBatches).toBe(1);
    expect(sent.slice(2).map((s) => s.items)).toEqual([[item(2)], [item(3)], [item(4)]]);
    sent[2]!.answer('r2');
    sent[3]!.fail(new Error('task t3 already exists'));
    sent[4]!.answer('r4');
    expect(await first).toBe('r1');
    expect(await Promise.all(outcomes)).toEqual(['r2', 'error: task t3 already exists', 'r4']);
  });

  it('never has two items of one key in flight, and keeps their order', async () => {
    const { group, sent, settle } = fakeDb({ keyOf: (x) => x.key });
    const a1 = group.run(item(1, 'a'));
    const later = [group.run(item(2, 'a')), group.run(item(3, 'b')), group.run(item(4, 'a'))];
    await settle();
    sent[0]!.answer('a1');
    await settle();
    // The second write of `a` goes with `b`; the third waits for the batch after, behind the second.
    expect(sent[1]).toMatchObject({ kind: 'many', items: [item(2, 'a'), item(3, 'b')] });
    expect(sent).toHaveLength(2);
    sent[1]!.answer(['a2', 'b3']);
    await settle();
    expect(sent[2]).toMatchObject({ kind: 'one', items: [item(4, 'a')] });
    sent[2]!.answer('a4');
    expect(await Promise.all([a1, ...later])).toEqual(['a1', 'a2', 'b3', 'a4']);
  });

  it('does not start an item whose key is in flight, even with room for another statement', async () => {
    const { group, sent, settle } = fakeDb({ keyOf: (x) => x.key, maxInFlight: 2 });
    const a1 = group.run(item(1, 'a'));
    const a2 = group.run(item(2, 'a'));
    const b3 = group.run(item(3, 'b'));
    await settle();
    // Two may be in flight: `a` and then `b`, never the second `a` beside the first.
    expect(sent.map((s) => s.items)).toEqual([[item(1, 'a')], [item(3, 'b')]]);
    sent[1]!.answer('b3');
    await settle();
    expect(sent).toHaveLength(2);
    sent[0]!.answer('a1');
    await settle();
    expect(sent[2]!.items).toEqual([item(2, 'a')]);
    sent[2]!.answer('a2');
    expect(await Promise.all([a1, a2, b3])).toEqual(['a1', 'a2', 'b3']);
  });

  it('caps a batch at maxBatch items; the rest go in the next', async () => {
    const { group, sent, settle } = fakeDb({ maxBatch: 2 });
    const all = [1, 2, 3, 4, 5, 6].map((n) => group.run(item(n)));
    await settle();
    sent[0]!.answer('r1');
    await settle();
    expect(sent[1]!.items).toEqual([item(2), item(3)]);
    sent[1]!.answer(['r2', 'r3']);
    await settle();
    expect(sent[2]!.items).toEqual([item(4), item(5)]);
    sent[2]!.answer(['r4', 'r5']);
    await settle();
    expect(sent[3]).toMatchObject({ kind: 'one', items: [item(6)] });
    sent[3]!.answer('r6');
    expect(await Promise.all(all)).toEqual(['r1', 'r2', 'r3', 'r4', 'r5', 'r6']);
  });
});
