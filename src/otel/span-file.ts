/**
 * Tracing into a file, for `a2a-once demo --trace` (ADR 0096): registers the OpenTelemetry SDK globally (a tracer
 * provider, an AsyncLocalStorage context manager, the W3C propagator) with an exporter that appends each finished
 * span to a file as one JSON line, synchronously, so a server killed with SIGKILL has written every span it ended.
 * The demo starts its `serve` processes with `A2A_ONCE_TRACE_FILE` set; it is internal, not a `serve` option. The
 * SDK packages are devDependencies of a2a-once, not dependencies: they are imported only here, only when asked.
 */
import { appendFileSync } from 'node:fs';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { Telemetry } from '../telemetry/telemetry.js';

/** The environment variable that turns a `serve` process's tracing into `FILE` on. */
export const TRACE_FILE_ENV = 'A2A_ONCE_TRACE_FILE';

/** What tracing loads. */
export const TRACE_PACKAGES = [
  '@opentelemetry/api',
  '@opentelemetry/sdk-trace-base',
  '@opentelemetry/context-async-hooks',
  '@opentelemetry/core',
] as const;

/** One finished span, as a line of the file. Times are milliseconds since the epoch (fractional). */
export interface SpanRecord {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  /** `SERVER`, `CLIENT` or `INTERNAL` (or another `SpanKind` name). */
  readonly kind: string;
  readonly attributes: Readonly<Record<string, unknown>>;
  readonly startMs: number;
  readonly endMs: number;
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
}

/** The packages tracing needs are not installed. */
export class TracePackagesMissing extends Error {
  constructor() {
    super(`--trace needs ${TRACE_PACKAGES.join(', ')} installed: npm install ${TRACE_PACKAGES.join(' ')}`);
    this.name = 'TracePackagesMissing';
  }
}

/** Tracing in this process. */
export interface TraceFile {
  /** For `createA2AServer` and `A2AClient`. */
  readonly telemetry: Telemetry;
}

const KIND_NAMES = ['INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'];

const ms = (t: readonly [number, number]) => t[0] * 1000 + t[1] / 1e6;

/** A finished span as a record. */
export function spanRecord(span: ReadableSpan): SpanRecord {
  const sc = span.spanContext();
  return {
    traceId: sc.traceId,
    spanId: sc.spanId,
    ...(span.parentSpanContext ? { parentSpanId: span.parentSpanContext.spanId } : {}),
    name: span.name,
    kind: KIND_NAMES[span.kind] ?? String(span.kind),
    attributes: { ...span.attributes },
    startMs: ms(span.startTime),
    endMs: ms(span.endTime),
    links: span.links.map((l) => ({ traceId: l.context.traceId, spanId: l.context.spanId })),
  };
}

/** Loads a module of `TRACE_PACKAGES`; a missing one is a `TracePackagesMissing`. */
async function load<T>(importIt: () => Promise<T>): Promise<T> {
  try {
    return await importIt();
  } catch (err) {
    const code = typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
    if (code === 'ERR_MODULE_NOT_FOUND') throw new TracePackagesMissing();
    throw err;
  }
}

/** Checks that the packages tracing needs can be loaded. @throws TracePackagesMissing */
export async function checkTracePackages(): Promise<void> {
  await startTracing(undefined);
}

/**
 * Registers the SDK globally, writing finished spans to `path` (nothing when undefined: a check that it loads).
 * @throws TracePackagesMissing
 */
async function startTracing(path: string | undefined): Promise<TraceFile> {
  const [api, sdk, hooks, core, otel] = await Promise.all([
    load(() => import('@opentelemetry/api')),
    load(() => import('@opentelemetry/sdk-trace-base')),
    load(() => import('@opentelemetry/context-async-hooks')),
    load(() => import('@opentelemetry/core')),
    load(() => import('../otel/open-telemetry.js')),
  ]);
  if (path !== undefined) {
    const exporter = {
      export(spans: ReadableSpan[], done: (r: { code: number; error?: Error }) => void) {
        try {
          appendFileSync(path, spans.map((s) => JSON.stringify(spanRecord(s)) + '\n').join(''));
          done({ code: core.ExportResultCode.SUCCESS });
        } catch (err) {
          // The SDK would pass it to its error handler, silent by default: say it, once per lost batch.
          const error = err instanceof Error ? err : new Error(String(err));
          process.stderr.write(
            `a2a-once: ${spans.length} span(s) not written to ${path}: ${error.message}\n`,
          );
          done({ code: core.ExportResultCode.FAILED, error });
        }
      },
      shutdown: () => Promise.resolve(),
    };
    api.trace.setGlobalTracerProvider(
      new sdk.BasicTracerProvider({ spanProcessors: [new sdk.SimpleSpanProcessor(exporter)] }),
    );
    api.context.setGlobalContextManager(new hooks.AsyncLocalStorageContextManager().enable());
    api.propagation.setGlobalPropagator(new core.W3CTraceContextPropagator());
  }
  return { telemetry: otel.openTelemetry() };
}

/** Tracing to `path`. @throws TracePackagesMissing */
export function startTraceFile(path: string): Promise<TraceFile> {
  return startTracing(path);
}

/** Tracing to the file `A2A_ONCE_TRACE_FILE` names, or undefined when it is not set. */
export function traceFileFromEnv(env: NodeJS.ProcessEnv = process.env): Promise<TraceFile | undefined> {
  const path = env[TRACE_FILE_ENV];
  return path === undefined || path === '' ? Promise.resolve(undefined) : startTracing(path);
}
