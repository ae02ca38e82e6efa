/**
 * OpenTelemetry metrics as a host sets them up, for the metrics tests: a real `MeterProvider` of
 * `@opentelemetry/sdk-metrics` with a reader the test collects from, and `openTelemetryMetrics()` over it.
 */
import {
  AggregationTemporality,
  DataPointType,
  MeterProvider,
  MetricReader,
  type DataPoint,
  type MetricData,
} from '@opentelemetry/sdk-metrics';
import { openTelemetryMetrics } from '../../src/otel/index.js';
import type { ServerMetrics } from '../../src/server/observability/metrics.js';

/** A reader collected on demand (cumulative, as Prometheus reads). */
class CollectingReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected override onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected override onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** A provider, its reader, and the seam over them. */
export interface MeteredHost {
  readonly metrics: ServerMetrics;
  /** Every metric collected now, by name. */
  collect(): Promise<Map<string, MetricData>>;
  shutdown(): Promise<void>;
}

export function meteredHost(): MeteredHost {
  const reader = new CollectingReader();
  const provider = new MeterProvider({ readers: [reader] });
  return {
    metrics: openTelemetryMetrics({ meterProvider: provider }),
    async collect() {
      const { resourceMetrics } = await reader.collect();
      const out = new Map<string, MetricData>();
      for (const scope of resourceMetrics.scopeMetrics)
        for (const m of scope.metrics) out.set(m.descriptor.name, m);
      return out;
    },
    shutdown: () => provider.shutdown(),
  };
}

/** The sum of a counter's points whose attributes include `match`. */
export function counted(m: MetricData | undefined, match: Record<string, string> = {}): number {
  if (m === undefined) return 0;
  let sum = 0;
  for (const p of m.dataPoints as DataPoint<number>[])
    if (Object.entries(match).every(([k, v]) => p.attributes[k] === v)) sum += p.value;
  return sum;
}

/** The number of values a histogram recorded with attributes including `match`, and their sum. */
export function recorded(
  m: MetricData | undefined,
  match: Record<string, string> = {},
): { count: number; sum: number } {
  let count = 0;
  let sum = 0;
  if (m === undefined || m.dataPointType !== DataPointType.HISTOGRAM) return { count, sum };
  for (const p of m.dataPoints)
    if (Object.entries(match).every(([k, v]) => p.attributes[k] === v)) {
      count += p.value.count;
      sum += p.value.sum ?? 0;
    }
  return { count, sum };
}

/** Every attribute value of every point of every metric. */
export function attributeValues(all: Map<string, MetricData>): string[] {
  const values: string[] = [];
  for (const m of all.values())
    for (const p of m.dataPoints) for (const v of Object.values(p.attributes)) values.push(String(v));
  return values;
}
