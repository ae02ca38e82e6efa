/**
 * What one commit of a turn's writes reports about itself: its duration and size to a histogram sink (ADR 0094)
 * and a span of the batch's size when there is live telemetry (ADR 0092). Without either it is the bare commit,
 * with no clock read and no extra `await` (ADR 0091: no cost without an SDK).
 */
import { live, type Telemetry } from '../../telemetry/telemetry.js';
import { ATTR, SPAN } from '../../telemetry/attributes.js';
import { METRIC } from '../observability/metric-names.js';
import { secondsSince, type HistogramSink } from '../observability/metrics.js';
import { errorNameOf } from './agent-failure.js';

/** Where a commit reports, and what it is. */
export interface CommitInstruments {
  readonly histograms: HistogramSink | undefined;
  readonly telemetry: Telemetry | undefined;
  readonly taskId: string;
  readonly fence: number;
}

/** Runs `commit` (of `size` writes), timed and traced as `instruments` allow. */
export async function instrumentedCommit(
  instruments: CommitInstruments,
  size: number,
  commit: () => Promise<void>,
): Promise<void> {
  const { histograms } = instruments;
  if (histograms === undefined) return tracedCommit(instruments, size, commit);
  const start = performance.now();
  try {
    await tracedCommit(instruments, size, commit);
  } finally {
    histograms(METRIC.commitDuration.name, secondsSince(start), {});
    histograms(METRIC.commitSize.name, size, {});
  }
}

async function tracedCommit(
  { telemetry: maybe, taskId, fence }: CommitInstruments,
  size: number,
  commit: () => Promise<void>,
): Promise<void> {
  const telemetry = live(maybe);
  if (telemetry === undefined) return commit();
  const span = telemetry.startSpan(SPAN.commit, {
    attributes: { [ATTR.commitSize]: size, [ATTR.taskId]: taskId, [ATTR.fence]: fence },
  });
  try {
    await span.run(commit);
  } catch (err) {
    span.fail(errorNameOf(err));
    throw err;
  } finally {
    span.end();
  }
}
