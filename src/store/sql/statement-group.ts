/**
 * Group commit for a store that talks to its database over a connection (ADR 0049). Callers that arrive while a
 * statement of their kind is in flight queue; when it returns, the queue goes out as ONE statement covering all of
 * them (one round trip, one transaction, one commit flush), so at load the cost per caller falls with the batch,
 * while a caller alone is sent at once, as before, with its single statement.
 *
 * Each caller still gets its own outcome. The batch statement settles the rows it can vouch for and leaves the
 * others `undefined`; those, and every item of a batch whose statement threw, run again with the single statement,
 * exactly as if they had come alone. That is safe because a batch is one transaction: when it throws, nothing of
 * it was written; when it returns, an unsettled item wrote nothing (its row did not match, or its key was taken),
 * and the single statement finds that again and says which.
 *
 * Items with the same `keyOf` are never in flight together (two writes of one task in one UPDATE would race inside
 * the statement): the later one waits for the batch after, keeping the order callers arrived in.
 */

import { whenSettled } from './settle.js';

/** How to run the statements of one kind. */
export interface StatementGroupOptions<I, O> {
  /** The single statement: one item, its own outcome or error. */
  readonly runOne: (item: I) => Promise<O>;
  /** The batch statement: an outcome per item, in order, `undefined` where the single statement must decide. */
  readonly runMany: (items: readonly I[]) => Promise<readonly (O | undefined)[]>;
  /** Items with the same key wait for each other's batch. */
  readonly keyOf?: (item: I) => string;
  /** Statements of this kind in flight at once (default 1). */
  readonly maxInFlight?: number;
  /** Items per batch statement at most (default 64). */
  readonly maxBatch?: number;
  /**
   * Turns of the event loop a batch waits while it still grows, before it is sent (`settle.ts`, ADR 0050); 0, the
   * default, sends at once: a caller alone goes immediately, and callers queue only behind a statement in flight.
   */
  readonly settleTurns?: number;
  /** Told when a batch statement threw and its items fell back to the single statement. */
  readonly onBatchError?: (err: unknown, size: number) => void;
}

interface Pending<I, O> {
  readonly item: I;
  resolve(value: O): void;
  reject(err: unknown): void;
}

/** Batches the statements of one kind while one is in flight. */
export class StatementGroup<I, O> {
  #queue: Pending<I, O>[] = [];
  #inFlight = 0;
  /** Keys of the items in flight. */
  readonly #busy = new Set<string>();
  readonly #maxInFlight: number;
  readonly #maxBatch: number;
  readonly #settleTurns: number;
  /** A settle wait is pending (`settleTurns` > 0). */
  #settling = false;
  /** Batch statements sent so far, the largest, and those that threw (observability for the bench and the tests). */
  batches = 0;
  largestBatch = 0;
  failedBatches = 0;

  constructor(private readonly o: StatementGroupOptions<I, O>) {
    this.#maxInFlight = Math.max(1, o.maxInFlight ?? 1);
    this.#maxBatch = Math.max(1, o.maxBatch ?? 64);
    this.#settleTurns = Math.max(0, o.settleTurns ?? 0);
  }

  /**
   * Runs `item` alone now (or once the batch settled, with `settleTurns`), or in the next batch when statements of
   * this kind are in flight.
   */
  run(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      this.#pump();
    });
  }

  #pump(): void {
    if (this.#settleTurns > 0 && this.#inFlight < this.#maxInFlight && this.#queue.length > 0) {
      // Room to send: first let the batch gather what the next turns of the event loop bring.
      if (!this.#settling) {
        this.#settling = true;
        whenSettled(
          () => this.#queue.length,
          () => {
            this.#settling = false;
            this.#sendReady();
          },
          this.#settleTurns,
        );
      }
      return;
    }
    this.#sendReady();
  }

  /** Sends what the queue holds, as far as statements in flight allow. */
  #sendReady(): void {
    while (this.#inFlight < this.#maxInFlight && this.#queue.length > 0) {
      const batch = this.#take();
      if (batch.length === 0) return;
      const keys = this.o.keyOf ? batch.map((p) => this.o.keyOf!(p.item)) : [];
      for (const key of keys) this.#busy.add(key);
      this.#inFlight++;
      void this.#send(batch).finally(() => {
        for (const key of keys) this.#busy.delete(key);
        this.#inFlight--;
        this.#pump();
      });
    }
  }

  /** The next batch: queued items in order, no two with one key nor a key in flight, at most maxBatch. */
  #take(): Pending<I, O>[] {
    const keyOf = this.o.keyOf;
    if (keyOf === undefined) return this.#queue.splice(0, this.#maxBatch);
    const batch: Pending<I, O>[] = [];
    const rest: Pending<I, O>[] = [];
    const keys = new Set<string>(this.#busy);
    for (const p of this.#queue) {
      const key = keyOf(p.item);
      // Once a key waits, every later item of it waits too: the writes of one key keep their order.
      if (batch.length >= this.#maxBatch || keys.has(key)) {
        rest.push(p);
        keys.add(key);
        continue;
      }
      keys.add(key);
      batch.push(p);
    }
    this.#queue = rest;
    return batch;
  }

  async #send(batch: readonly Pending<I, O>[]): Promise<void> {
    if (batch.length === 1) return this.#one(batch[0]!);
    this.batches++;
    this.largestBatch = Math.max(this.largestBatch, batch.length);
    let outcomes: readonly (O | undefined)[];
    try {
      outcomes = await this.o.runMany(batch.map((p) => p.item));
    } catch (err) {
      this.failedBatches++;
      this.o.onBatchError?.(err, batch.length);
      await Promise.all(batch.map((p) => this.#one(p)));
      return;
    }
    const unsettled: Pending<I, O>[] = [];
    batch.forEach((p, i) => {
      const outcome = outcomes[i];
      if (outcome === undefined) unsettled.push(p);
      else p.resolve(outcome);
    });
    await Promise.all(unsettled.map((p) => this.#one(p)));
  }

  async #one(p: Pending<I, O>): Promise<void> {
    try {
      p.resolve(await this.o.runOne(p.item));
    } catch (err) {
      p.reject(err);
    }
  }
}
