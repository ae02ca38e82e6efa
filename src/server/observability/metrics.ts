/**
 * The metrics seam (ADR 0094): counters and histograms with attributes, which map one-to-one onto an
 * OpenTelemetry `Counter.add` and `Histogram.record` (`openTelemetryMetrics()` in `a2a-once/otel`). Every
 * outcome of a send is counted (docs/semantics.md §2). A sink without `record` gets no histogram value, and then
 * nothing is timed: the default `noopMetrics` and the built-in `InMemoryMetrics` (counter totals a host can read)
 * cost the send path one comparison per timed section.
 */

/** Outcomes of admission. */
export type AdmissionOutcome = 'claimed' | 'replayed' | 'conflict' | 'expired' | 'refused' | 'released';

/** A metrics sink; the names it is given are `METRIC`'s (metric-names.ts). */
export interface ServerMetrics {
  /** Adds `value` to the counter `name` for these attributes. */
  add(name: string, value: number, attributes: Record<string, string>): void;
  /**
   * Records `value` in the histogram `name` (seconds for durations). Absent: durations and sizes are neither
   * measured nor recorded.
   */
  record?(name: string, value: number, attributes: Record<string, string>): void;
  /**
   * Registers the gauge `name`, whose value `read` gives whenever the sink collects (a scrape, an export). Absent:
   * no gauge is kept, and nothing is read for one.
   */
  observe?(name: string, read: () => Promise<number | undefined>): void;
}

/** Counter name of admission outcomes; attribute `outcome`, plus `tenant` and `reason` where known. */
export const ADMISSION_COUNTER = 'a2a_once.admission';

/** The histogram half of a sink, when it has one: what the timed call sites check once. */
export type HistogramSink = (name: string, value: number, attributes: Record<string, string>) => void;

/**
 * `metrics.record`, or undefined when the sink records no histogram. A host's sink that throws changes nothing
 * of what the server does (as for admission counts): the value is dropped.
 */
export function histogramsOf(metrics: ServerMetrics | undefined): HistogramSink | undefined {
  if (metrics?.record === undefined) return undefined;
  return (name, value, attributes) => {
    try {
      metrics.record!(name, value, attributes);
    } catch {
      // A broken metrics sink must not change what the server does.
    }
  };
}

/** Adds to a counter; a sink that throws changes nothing of what the server does. */
export function countSafely(
  metrics: ServerMetrics | undefined,
  name: string,
  attributes: Record<string, string>,
): void {
  if (metrics === undefined || metrics === noopMetrics) return;
  try {
    metrics.add(name, 1, attributes);
  } catch {
    // A broken metrics sink must not change what the server does.
  }
}

/** Seconds since `startMs` (a `performance.now()` reading), as histograms of durations take them. */
export function secondsSince(startMs: number): number {
  return (performance.now() - startMs) / 1000;
}

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
