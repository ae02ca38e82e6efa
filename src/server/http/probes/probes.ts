/**
 * The health and readiness probes (docs/guides/production.md "Probes", ADR 0089), answered by the fetch handler
 * itself, before authentication, so every host gets them: `/healthz` says the process answers; `/readyz` says the
 * server can take sends (the store answers in time, start-up recovery is done, it is not draining). JSON, 200 or
 * 503, never cached.
 */
import { respond } from '../wire/light-response.js';

/** How long `/readyz` waits for the store before it calls it silent. */
export const READY_STORE_TIMEOUT_MS = 2000;

/** One readiness check: `ok`, or what failed. */
export interface ReadinessCheck {
  readonly ok: boolean;
  readonly detail?: string;
}

/** What `/readyz` reports, check by check. */
export interface Readiness {
  readonly ready: boolean;
  readonly checks: Readonly<Record<string, ReadinessCheck>>;
}

/** Computes readiness; never throws (a failing check is a check that says so). */
export type ReadinessProbe = () => Promise<Readiness>;

/** The probe paths, resolved: a path, or false when that probe is off. */
export interface ProbePaths {
  readonly healthPath: string | false;
  readonly readyPath: string | false;
}

const HEADERS = { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' };

/**
 * The answer of a probe path, or undefined when `path` is not one (or `method` is not GET or HEAD). Without a
 * readiness probe (a fetch handler built over a bare RequestHandler), `/readyz` says ready when the process
 * answers.
 */
export function probeAnswer(
  method: string,
  path: string,
  paths: ProbePaths,
  readiness: ReadinessProbe | undefined,
): Promise<Response> | undefined {
  if (method !== 'GET' && method !== 'HEAD') return undefined;
  const body = (text: string) => (method === 'HEAD' ? null : text);
  if (path === paths.healthPath) return Promise.resolve(respond(200, body('{"status":"ok"}'), HEADERS));
  if (path !== paths.readyPath) return undefined;
  if (readiness === undefined)
    return Promise.resolve(respond(200, body('{"ready":true,"checks":{}}'), HEADERS));
  return readiness().then((r) => respond(r.ready ? 200 : 503, body(JSON.stringify(r)), { ...HEADERS }));
}

/** Gathers named checks into a Readiness; a check that throws fails with its message. */
export async function gatherReadiness(
  checks: Readonly<Record<string, () => Promise<ReadinessCheck> | ReadinessCheck>>,
): Promise<Readiness> {
  const names = Object.keys(checks);
  const results = await Promise.all(
    names.map(async (name): Promise<ReadinessCheck> => {
      try {
        return await checks[name]!();
      } catch (err) {
        return { ok: false, detail: err instanceof Error ? err.message : String(err) };
      }
    }),
  );
  const out: Record<string, ReadinessCheck> = {};
  names.forEach((n, i) => (out[n] = results[i]!));
  return { ready: results.every((r) => r.ok), checks: out };
}

/** Resolves with `ok` when `read` answers within `timeoutMs`, else with what went wrong. */
export async function boundedCheck(read: () => Promise<unknown>, timeoutMs: number): Promise<ReadinessCheck> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const silent = new Promise<ReadinessCheck>((resolve) => {
    timer = setTimeout(() => resolve({ ok: false, detail: `no answer within ${timeoutMs} ms` }), timeoutMs);
  });
  try {
    return await Promise.race([
      read().then(
        (): ReadinessCheck => ({ ok: true }),
        (err: unknown): ReadinessCheck => ({
          ok: false,
          detail: err instanceof Error ? err.message : String(err),
        }),
      ),
      silent,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** What the schema check reads of a store: its optional `schemaStatus` (TaskStore). */
interface SchemaReader {
  schemaStatus?(): Promise<{ readonly version: number; readonly latest: number }>;
}

/**
 * `ok` when the store's schema is the newest this code knows (or the store has no schema), else what is missing:
 * a replica started with new code before `a2a-once migrate` ran is not ready. Bounded like the store check.
 */
export async function schemaCheck(store: SchemaReader, timeoutMs: number): Promise<ReadinessCheck> {
  if (store.schemaStatus === undefined) return { ok: true };
  let status: { version: number; latest: number } | undefined;
  const read = await boundedCheck(async () => {
    status = await store.schemaStatus!();
  }, timeoutMs);
  if (!read.ok || status === undefined) return read;
  if (status.version >= status.latest) return { ok: true };
  return {
    ok: false,
    detail: `schema version ${status.version}, this a2a-once needs ${status.latest}: run a2a-once migrate`,
  };
}
