/**
 * `/metrics` in Prometheus text for `a2a-once serve --metrics-port` (ADR 0095): a MeterProvider of
 * `@opentelemetry/sdk-metrics` read by `@opentelemetry/exporter-prometheus`'s PrometheusExporter, whose
 * request handler writes the text, on a listener of its own. Not exported by `a2a-once/otel`: the CLI imports it
 * dynamically, so only hosts that ask for the endpoint need the SDK and the exporter installed.
 */
import { createServer, type Server } from 'node:http';
import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import type { ServerMetrics } from '../server/observability/metrics.js';
import { openTelemetryMetrics } from './open-telemetry-metrics.js';

/** The path Prometheus scrapes. */
export const METRICS_PATH = '/metrics';

/** A running endpoint. */
export interface PrometheusEndpoint {
  /** The sink to pass as the server's `metrics`. */
  readonly metrics: ServerMetrics;
  /** `http://host:port/metrics`, with the port bound (port 0 picks one). */
  readonly url: string;
  close(): Promise<void>;
}

/** Listens on `host:port` and serves the metrics recorded through `metrics` at `/metrics`. */
export async function startPrometheusEndpoint(host: string, port: number): Promise<PrometheusEndpoint> {
  // The exporter's own server cannot say which port 0 bound: its handler is served here instead.
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const provider = new MeterProvider({ readers: [exporter] });
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === METRICS_PATH) return exporter.getMetricsRequestHandler(req, res);
    res.statusCode = 404;
    res.setHeader('content-type', 'text/plain');
    res.end(`Not found: metrics are at ${METRICS_PATH}\n`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    metrics: openTelemetryMetrics({ meterProvider: provider }),
    url: `http://${shown}:${bound}${METRICS_PATH}`,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await provider.shutdown();
    },
  };
}
