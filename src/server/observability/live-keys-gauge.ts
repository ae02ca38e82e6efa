/**
 * The `a2a_once.keys.live` gauge (ADR 0094): the store's live keys, counted at most once per `maxAgeMs` however
 * often the sink collects (a count is one indexed query on SQL stores, but a scrape every second of every replica
 * should not be one each), and never waited on for longer than `timeoutMs` (a silent database leaves the gauge
 * out of that collection rather than hanging it).
 */
import { METRIC } from './metric-names.js';
import type { ServerMetrics } from './metrics.js';

/** How old a count may be before it is read again. */
export const LIVE_KEYS_MAX_AGE_MS = 15_000;
const READ_TIMEOUT_MS = 2000;

/** Registers the gauge when the sink keeps gauges and the store counts its keys; otherwise does nothing. */
export function observeLiveKeys(
  metrics: ServerMetrics,
  store: { countLiveKeys?(): Promise<number> },
  now: () => number = Date.now,
  maxAgeMs = LIVE_KEYS_MAX_AGE_MS,
): void {
  if (metrics.observe === undefined || store.countLiveKeys === undefined) return;
  let last: { at: number; value: number } | undefined;
  let reading: Promise<number | undefined> | undefined;
  const read = async (): Promise<number | undefined> => {
    if (last !== undefined && now() - last.at < maxAgeMs) return last.value;
    reading ??= bounded(store.countLiveKeys!()).then(
      (value) => {
        if (value !== undefined) last = { at: now(), value };
        return value;
      },
      () => undefined,
    );
    try {
      return await reading;
    } finally {
      reading = undefined;
    }
  };
  try {
    metrics.observe(METRIC.liveKeys.name, read);
  } catch {
    // A broken metrics sink must not change what the server does: no gauge, the server as it was.
  }
}

function bounded(count: Promise<number>): Promise<number | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const silent = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), READ_TIMEOUT_MS);
    timer.unref?.();
  });
  return Promise.race([count, silent]).finally(() => clearTimeout(timer));
}
