/**
 * The duration of one A2A call (ADR 0094), for both bindings: from the request reaching the binding to its
 * answer, or to its end for a stream, recorded as `a2a_once.server.call.duration` by method and outcome. Only
 * built when the host's metrics sink records histograms: otherwise no clock is read.
 */
import type { A2AMethod } from '../../protocol/constants.js';
import { ATTR } from '../../telemetry/attributes.js';
import { METRIC, OUTCOME_ATTR } from '../observability/metric-names.js';
import { secondsSince, type HistogramSink } from '../observability/metrics.js';

/** A call's timer; only its first `done` records. */
export interface CallTimer {
  /** The call ended: answered (no `errorType`), or with the A2A error named `errorType`. */
  done(method: A2AMethod | undefined, errorType?: string): void;
}

/** Starts timing a call. */
export function startCallTimer(histograms: HistogramSink): CallTimer {
  const start = performance.now();
  let ended = false;
  return {
    done(method, errorType) {
      if (ended) return;
      ended = true;
      // A method never read (a body that is not JSON-RPC) leaves the attribute out: its values stay the 11 methods.
      const attributes: Record<string, string> = {};
      if (method !== undefined) attributes[ATTR.method] = method;
      attributes[OUTCOME_ATTR] = errorType === undefined ? 'ok' : 'error';
      if (errorType !== undefined) attributes[ATTR.errorType] = errorType;
      histograms(METRIC.callDuration.name, secondsSince(start), attributes);
    },
  };
}
