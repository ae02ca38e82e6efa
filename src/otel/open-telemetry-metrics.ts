/**
 * `openTelemetryMetrics()`: the metrics seam over `@opentelemetry/api` (ADR 0094). Each name the server records
 * becomes one instrument of one `Meter`, made at its first use with the unit and description `METRIC` gives it;
 * `add` is `Counter.add`, `record` is `Histogram.record`, `observe` an observable gauge's callback. By default the meter comes from the MeterProvider
 * registered globally when this is called (`metrics.setGlobalMeterProvider`, which an SDK's `start()` does):
 * register it first, or pass `meterProvider`.
 */
import { metrics, type Counter, type Histogram, type Meter, type MeterProvider } from '@opentelemetry/api';
import { METRICS_BY_NAME } from '../server/observability/metric-names.js';
import type { ServerMetrics } from '../server/observability/metrics.js';

/** A meter provider: an object with `getMeter`, as `@opentelemetry/api` defines it. */
export interface MeterProviderLike {
  getMeter(name: string, version?: string, options?: unknown): unknown;
}

/** Options of `openTelemetryMetrics`. */
export interface OpenTelemetryMetricsOptions {
  /** Default: the global meter provider, as registered when `openTelemetryMetrics` is called. */
  readonly meterProvider?: MeterProviderLike;
  /** The meter's instrumentation scope name. Default `a2a-once`. */
  readonly meterName?: string;
}

/**
 * Bucket bounds of the duration histograms, in seconds: those the OpenTelemetry HTTP conventions advise for
 * `http.server.request.duration`, then up to a minute (a blocking send waits up to 60 s by default).
 */
const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 30, 60];

/** Bucket bounds of the size histograms (writes per commit): powers of two. */
const COUNT_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/** Metrics through `@opentelemetry/api`. Pass it as `metrics` to `createA2AServer`. */
export function openTelemetryMetrics(options: OpenTelemetryMetricsOptions = {}): ServerMetrics {
  const provider = (options.meterProvider as MeterProvider | undefined) ?? metrics.getMeterProvider();
  const meter: Meter = provider.getMeter(options.meterName ?? 'a2a-once');
  const counters = new Map<string, Counter>();
  const histograms = new Map<string, Histogram>();
  return {
    add(name, value, attributes) {
      let counter = counters.get(name);
      if (counter === undefined) {
        const d = METRICS_BY_NAME.get(name);
        counter = meter.createCounter(name, d ? { unit: d.unit, description: d.description } : {});
        counters.set(name, counter);
      }
      counter.add(value, attributes);
    },
    observe(name, read) {
      const d = METRICS_BY_NAME.get(name);
      meter
        .createObservableGauge(name, d ? { unit: d.unit, description: d.description } : {})
        .addCallback(async (result) => {
          const value = await read();
          if (value !== undefined) result.observe(value);
        });
    },
    record(name, value, attributes) {
      let histogram = histograms.get(name);
      if (histogram === undefined) {
        const d = METRICS_BY_NAME.get(name);
        histogram = meter.createHistogram(
          name,
          d
            ? {
                unit: d.unit,
                description: d.description,
                advice: { explicitBucketBoundaries: d.unit === 's' ? SECONDS_BUCKETS : COUNT_BUCKETS },
              }
            : {},
        );
        histograms.set(name, histogram);
      }
      histogram.record(value, attributes);
    },
  };
}
