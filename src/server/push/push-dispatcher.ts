/**
 * Push delivery in the background (docs/semantics.md §5, ADR 0045). The store is the outbox: the dispatcher
 * claims webhooks that have undelivered events, sends each one's next event, and records the outcome under its
 * claim, so the events of one task reach one webhook in order (event n + 1 only after n was acknowledged or given
 * up), at least once, across restarts and replicas.
 *
 * - Claims (ADR 0056): each claim call has its own name, the claim is confirmed right before every POST
 *   (`delivery-attempt.ts`), and an outcome whose answer was lost is recorded again, which the store answers as
 *   landed; so a dispatcher whose claim lapsed never sends, and nothing is counted twice.
 * - Wake-ups: a commit in this process of a task known to have configs nudges it at once; a poll every
 *   `pollIntervalMs` finds what other replicas or an earlier process left, and retries that came due.
 * - Bounded: at most `maxConcurrent` webhooks are served at once, each attempt (lookup included) within
 *   `attemptTimeoutMs`, so a slow webhook holds one slot for a bounded time and never the request path.
 * - Outcomes: 2xx acknowledges; 408, 429, 5xx and no answer are retried with full-jitter backoff (a
 *   `Retry-After` in seconds is honoured up to the backoff cap); any other status (3xx, 4xx) and a target the
 *   guard refuses give that event up at once. Failing for `giveUpAfterMs`, the whole backlog is given up. Each
 *   give-up is kept on the cursor (`TaskStore.getPushDelivery`) and logged at warn.
 * Only `scheme://host[:port]` of a webhook is ever logged; tokens and credentials never are.
 */
import type { Scope } from '../../store/scope.js';
import type { PushDelivery, PushOutcome } from '../../store/push-delivery.js';
import type { TaskStore } from '../../store/task-store.js';
import type { Clock } from '../../store/clock.js';
import { StoreError } from '../../store/sql/store-error.js';
import type { ServerLogger } from '../observability/logger.js';
import { errorFields, logSafely } from '../observability/error-log.js';
import { retryDelayMs, type ResolvedPushOptions } from './push-options.js';
import { attemptDelivery, type AttemptContext, type Verdict } from './delivery-attempt.js';
import type { StoredEvent } from '../../store/records.js';
import { METRIC, OUTCOME_ATTR } from '../observability/metric-names.js';
import {
  countSafely,
  histogramsOf,
  type HistogramSink,
  type ServerMetrics,
} from '../observability/metrics.js';
import { makeAgents, type PostAgents } from './webhook-post.js';
import { tracedDelivery } from './traced-delivery.js';
import type { PushTracing } from './push-tracing.js';
import { webhookOrigin } from './webhook-url-guard.js';

/** A claimed webhook and the name of the claim it is held under. */
interface Claimed extends PushDelivery {
  readonly claim: string;
}

/** Tasks remembered as having configs, for the commit nudge; past this the oldest is forgotten (the poll remains). */
const MAX_KNOWN_TASKS = 10_000;

/** Tries of one record: a store error may mean only its answer was lost, and a repeat is safe (ADR 0056). */
const RECORD_TRIES = 3;
const RECORD_RETRY_MS = 50;

function taskKeyOf(scope: Scope, taskId: string): string {
  return `${scope.tenant}\u0000${scope.owner}\u0000${taskId}`;
}

/** Delivers the events of tasks with push configs. */
export class PushDispatcher {
  readonly #store: TaskStore;
  readonly #o: ResolvedPushOptions;
  readonly #logger: ServerLogger;
  readonly #clock: Clock;
  /** This dispatcher's name; each claim is named `<holder>#<n>`, so no two claims share a name (ADR 0056). */
  readonly holder: string;
  #claims = 0;
  readonly #agents: PostAgents = makeAgents();
  /** A span per attempt, with telemetry (ADR 0092). */
  readonly #tracing: PushTracing | undefined;
  /** Attempts by outcome, and the lag of delivered events (ADR 0094). */
  readonly #metrics: ServerMetrics | undefined;
  readonly #histograms: HistogramSink | undefined;
  readonly #known = new Set<string>();
  readonly #running = new Set<Promise<void>>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #poll: NodeJS.Timeout | undefined;
  #pumping = false;
  #again = false;
  #closed = false;
  #storeFailing = false;

  constructor(
    store: TaskStore,
    options: ResolvedPushOptions,
    logger: ServerLogger,
    clock: Clock,
    holder: string,
    tracing?: PushTracing,
    metrics?: ServerMetrics,
  ) {
    this.#tracing = tracing;
    this.#metrics = metrics;
    this.#histograms = histogramsOf(metrics);
    this.#store = store;
    this.#o = options;
    this.#logger = logger;
    this.#clock = clock;
    this.holder = holder;
  }

  /** Starts the poll and looks for work at once (what a previous process left). */
  start(): void {
    if (this.#poll || this.#closed) return;
    this.#poll = setInterval(() => this.wake(), this.#o.pollIntervalMs);
    this.#poll.unref();
    this.wake();
  }

  /** Remembers that a task has push configs, so its commits in this process wake the dispatcher. */
  track(scope: Scope, taskId: string): void {
    const key = taskKeyOf(scope, taskId);
    this.#known.delete(key);
    this.#known.add(key);
    if (this.#known.size > MAX_KNOWN_TASKS) this.#known.delete(this.#known.values().next().value!);
  }

  /** Called after every commit in this process: wakes the dispatcher if the task has configs. Cheap otherwise. */
  committed(scope: Scope, taskId: string): void {
    if (this.#known.has(taskKeyOf(scope, taskId))) this.wake();
  }

  /** Looks for due work now. */
  wake(): void {
    if (this.#closed) return;
    void this.#pump();
  }

  /** Webhooks being served right now. */
  get activeCount(): number {
    return this.#running.size;
  }

  async #pump(): Promise<void> {
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    this.#pumping = true;
    try {
      do {
        this.#again = false;
        const free = this.#o.maxConcurrent - this.#running.size;
        if (free <= 0 || this.#closed) break;
        const claimed = await this.#claim(free);
        for (const d of claimed) this.#serve(d);
        // A full batch may mean more is due.
        if (claimed.length === free) this.#again = true;
      } while (this.#again && !this.#closed);
    } finally {
      this.#pumping = false;
    }
  }

  async #claim(limit: number): Promise<Claimed[]> {
    try {
      const claim = `${this.holder}#${++this.#claims}`;
      const claimed = await this.#store.claimPushDeliveries(claim, this.#o.claimMs, limit);
      this.#storeFailing = false;
      return claimed.map((d) => ({ ...d, claim }));
    } catch (err) {
      // Logged once per failing spell, not on every poll; the next poll tries again.
      if (!this.#storeFailing)
        logSafely(this.#logger, 'error', 'push delivery could not read its outbox', errorFields(err));
      this.#storeFailing = true;
      return [];
    }
  }

  #serve(d: Claimed): void {
    this.track(d.scope, d.taskId);
    const run = this.#deliver(d)
      .catch((err: unknown) => {
        logSafely(this.#logger, 'error', 'push delivery failed unexpectedly', {
          taskId: d.taskId,
          configId: d.configId,
          ...errorFields(err),
        });
      })
      .finally(() => {
        this.#running.delete(run);
        this.wake();
      });
    this.#running.add(run);
  }

  /**
   * Records an outcome under `d`'s claim. A store error is tried again a few times: the write may have landed
   * with only its answer lost, and the store answers a repeat of a landed outcome as landed (ADR 0056).
   */
  async #record(d: Claimed, outcome: PushOutcome): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#store.recordPushDelivery(d.scope, d.taskId, d.configId, d.claim, outcome);
      } catch (err) {
        const hopeless = err instanceof StoreError && err.code === 'BAD_ARGUMENT';
        if (hopeless || attempt >= RECORD_TRIES || this.#closed) throw err;
        logSafely(this.#logger, 'warn', 'push delivery could not record an outcome; trying again', {
          taskId: d.taskId,
          configId: d.configId,
          outcome: outcome.kind,
          attempt,
          ...errorFields(err),
        });
        await new Promise((r) => setTimeout(r, RECORD_RETRY_MS * attempt));
      }
    }
  }

  /** Sends the webhook's events in order from its cursor, until one fails, the claim is lost, or none is left. */
  async #deliver(d: Claimed): Promise<void> {
    const events = await this.#store.readEvents(d.scope, d.taskId, d.deliveredSeq);
    let failingSince = d.failingSince;
    let attempts = d.attempts;
    for (const e of events) {
      if (this.#closed) break;
      const verdict =
        this.#tracing === undefined || this.#tracing.telemetry.quiet?.() === true
          ? await attemptDelivery(d, e, this.#attemptContext(d, e.seq))
          : await tracedDelivery(this.#tracing, d, e, this.#attemptContext(d, e.seq));
      if (verdict.kind === 'lost') return; // taken over: whoever holds it now goes on
      if (this.#metrics !== undefined) this.#count(verdict, e);
      if (verdict.kind === 'ack') {
        if (!(await this.#record(d, { kind: 'delivered', seq: e.seq, claimMs: this.#o.claimMs }))) return;
        failingSince = undefined;
        attempts = 0;
        continue;
      }
      const now = this.#clock.now();
      if (verdict.kind === 'reject') {
        await this.#giveUp(d, e.seq, 'event', verdict.reason, verdict.error);
        return; // released; the rest is claimed again at once
      }
      if (now - (failingSince ?? now) >= this.#o.giveUpAfterMs) {
        await this.#giveUp(d, e.seq, 'backlog', 'expired', verdict.error);
        return;
      }
      const backoff = retryDelayMs(attempts + 1, this.#o);
      const delay = Math.min(this.#o.backoffMaxMs, Math.max(backoff, verdict.afterMs ?? 0));
      const retryAt = now + delay;
      await this.#record(d, { kind: 'failed', seq: e.seq, error: verdict.error, retryAt });
      if (this.#logger.enabled?.('info') !== false) {
        this.#logger.info('push delivery failed; will retry', {
          taskId: d.taskId,
          configId: d.configId,
          webhook: webhookOrigin(d.config.url),
          seq: e.seq,
          attempt: attempts + 1,
          error: verdict.error,
          retryInMs: delay,
        });
      }
      this.#wakeAt(delay);
      return;
    }
    await this.#record(d, { kind: 'released' });
  }

  /** Counts an attempt; a delivered event's lag is from its status timestamp, when it has one. */
  #count(verdict: Verdict, e: StoredEvent): void {
    const outcome = verdict.kind === 'ack' ? 'delivered' : verdict.kind === 'retry' ? 'retry' : 'rejected';
    countSafely(this.#metrics, METRIC.pushDeliveries.name, { [OUTCOME_ATTR]: outcome });
    if (verdict.kind !== 'ack' || this.#histograms === undefined) return;
    const at = Date.parse(eventTimestamp(e) ?? '');
    if (Number.isFinite(at))
      this.#histograms(METRIC.pushLag.name, Math.max(0, this.#clock.now() - at) / 1000, {});
  }

  async #giveUp(
    d: Claimed,
    seq: number,
    through: 'event' | 'backlog',
    reason: string,
    error: string,
  ): Promise<void> {
    const recorded = await this.#record(d, { kind: 'given-up', seq, through, reason, error });
    if (!recorded) return;
    this.#logger.warn('push delivery gave up', {
      taskId: d.taskId,
      configId: d.configId,
      webhook: webhookOrigin(d.config.url),
      fromSeq: seq,
      through,
      reason,
      error,
    });
  }

  /** What one attempt at event `seq` needs: the claim is confirmed with the store's `sending` outcome. */
  #attemptContext(d: Claimed, seq: number): AttemptContext {
    return {
      options: this.#o,
      agents: this.#agents,
      clock: this.#clock,
      confirm: () => this.#record(d, { kind: 'sending', seq, claimMs: this.#o.claimMs }),
    };
  }

  /** Wakes the dispatcher when a retry scheduled here comes due (the poll would too, later). */
  #wakeAt(delayMs: number): void {
    if (this.#closed) return;
    const t = setTimeout(() => {
      this.#timers.delete(t);
      this.wake();
    }, delayMs + 1);
    t.unref();
    this.#timers.add(t);
  }

  /** Stops claiming, waits for attempts in flight (each bounded by the attempt timeout), closes connections. */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#poll) clearInterval(this.#poll);
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
    this.#agents.http.destroy();
    this.#agents.https.destroy();
  }
}

/** The status timestamp an event carries: a task's or a status update's (an artifact update has none). */
function eventTimestamp(e: StoredEvent): string | undefined {
  const ev = e.event;
  if ('statusUpdate' in ev) return ev.statusUpdate.status.timestamp;
  if ('task' in ev) return ev.task.status.timestamp;
  return undefined;
}
