/**
 * The listeners `serve` opens besides its HTTP port, and what a failed listen means: `--metrics-port` loads
 * OpenTelemetry only when given (ADR 0095).
 */
import type { PrometheusEndpoint, startPrometheusEndpoint } from '../../otel/prometheus-endpoint.js';

/** What a failed listen means, in words a user can act on. */
export function listenFailure(err: unknown, host: string, port: number, flag = '--port'): Error {
  const code = typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
  if (code === 'EADDRINUSE')
    return new Error(
      `port ${port} on ${host} is in use: pick another with ${flag} N, or ${flag} 0 for any free port`,
    );
  if (code === 'EACCES')
    return new Error(
      `not allowed to listen on port ${port} on ${host}: pick a port above 1023 with ${flag} N`,
    );
  return err instanceof Error ? err : new Error(String(err));
}

/** The packages `--metrics-port` loads (optional peers of a2a-once). */
const METRICS_PACKAGES = [
  '@opentelemetry/api',
  '@opentelemetry/sdk-metrics',
  '@opentelemetry/exporter-prometheus',
] as const;

/**
 * Starts the Prometheus endpoint of `--metrics-port` (ADR 0095), loading OpenTelemetry only now: a `serve`
 * without the flag runs without those packages installed.
 */
export async function startMetrics(host: string, port: number): Promise<PrometheusEndpoint> {
  let endpoint: { startPrometheusEndpoint: typeof startPrometheusEndpoint };
  try {
    endpoint = await import('../../otel/prometheus-endpoint.js');
  } catch (err) {
    const code = typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
    if (code === 'ERR_MODULE_NOT_FOUND')
      throw new Error(
        `--metrics-port needs ${METRICS_PACKAGES.join(', ')} installed: npm install ${METRICS_PACKAGES.join(' ')}`,
      );
    throw err;
  }
  return endpoint.startPrometheusEndpoint(host, port).catch((err: unknown) => {
    throw listenFailure(err, host, port, '--metrics-port');
  });
}
