/**
 * Admission metrics (docs/semantics.md §2 outcomes): every outcome of a send is counted. The `ServerMetrics` seam is a counter
 * with attributes, which maps one-to-one onto an OpenTelemetry `Counter.add(value, attributes)`; the built-in
 * `InMemoryMetrics` keeps totals a host can read or export.
 */

/** Outcomes of admission. */
export type AdmissionOutcome = 'claimed' | 'replayed' | 'conflict' | 'expired' | 'refused' | 'released';

/** A counter sink. */
export interface ServerMetrics {
  /** Adds `value` to the counter `name` for these attributes. */
  add(name: string, value: number, attributes: Record<string, string>): void;
}

/** Counter name of admission outcomes; attribute `outcome`, plus `tenant` and `reason` where known. */
export const ADMISSION_COUNTER = 'a2a_once.admission';

/** Keeps counters in memory. */
export class InMemoryMetrics implements ServerMetrics {
  readonly #totals = new Map<string, number>();

  add(name: string, value: number, attributes: Record<string, string>): void {
    // Called on every send: one string built in a loop, and a sort only when the keys are out of order.
    const keys = Object.keys(attributes);
    for (let i = 1; i < keys.length; i++) {
      if (keys[i - 1]! > keys[i]!) {
        keys.sort();
        break;
      }
    }
    let key = name + '|';
    for (let i = 0; i < keys.length; i++) key += (i > 0 ? ',' : '') + keys[i]! + '=' + attributes[keys[i]!]!;
    this.#totals.set(key, (this.#totals.get(key) ?? 0) + value);
  }

  /** Sum of a counter over every attribute set that includes `match`. */
  total(name: string, match: Record<string, string> = {}): number {
    let sum = 0;
    for (const [key, v] of this.#totals) {
      const [n, attrs = ''] = key.split('|') as [string, string?];
      if (n !== name) continue;
      const pairs = new Set(attrs.split(','));
      if (Object.entries(match).every(([k, val]) => pairs.has(`${k}=${val}`))) sum += v;
    }
    return sum;
  }

  /** Every counter, as `name|attr=value,...` to total. */
  snapshot(): Record<string, number> {
    return Object.fromEntries(this.#totals);
  }
}

/** Discards everything. */
export const noopMetrics: ServerMetrics = { add: () => undefined };
