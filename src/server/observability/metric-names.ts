/**
 * Every metric a2a-once records (ADR 0094): its name, kind, unit and what it counts. Durations are in seconds
 * and sizes in their own unit, as the OpenTelemetry semantic conventions say; attribute names are the spans'
 * (`ATTR`, ADR 0092). No attribute ever holds an idempotency key, a credential or a task id: a metric's
 * attribute sets must stay few.
 */

/** How a metric aggregates. */
export type MetricKind = 'counter' | 'histogram' | 'gauge';

/** One metric. */
export interface MetricDefinition {
  readonly name: string;
  readonly kind: MetricKind;
  /** UCUM, as OpenTelemetry writes it: `s`, or a `{thing}` annotation for counts. */
  readonly unit: string;
  readonly description: string;
}

/** The metrics, by role. */
export const METRIC = {
  admission: {
    name: 'a2a_once.admission',
    kind: 'counter',
    unit: '{send}',
    description: 'Sends by admission outcome (claimed, replayed, conflict, expired, refused, released)',
  },
  callDuration: {
    name: 'a2a_once.server.call.duration',
    kind: 'histogram',
    unit: 's',
    description: 'Duration of A2A calls served, to the answer (a stream: to its end)',
  },
  turns: {
    name: 'a2a_once.agent.turns',
    kind: 'counter',
    unit: '{turn}',
    description: 'Agent turns ended in this process, by the task state they left',
  },
  turnDuration: {
    name: 'a2a_once.agent.turn.duration',
    kind: 'histogram',
    unit: 's',
    description: 'Duration of agent turns, by the task state they left',
  },
  commitDuration: {
    name: 'a2a_once.store.commit.duration',
    kind: 'histogram',
    unit: 's',
    description: "Duration of a turn's store commits (one compare-and-set, retries included)",
  },
  commitSize: {
    name: 'a2a_once.store.commit.size',
    kind: 'histogram',
    unit: '{write}',
    description: "Writes of a turn's agent stored together in one commit",
  },
  pushDeliveries: {
    name: 'a2a_once.push.deliveries',
    kind: 'counter',
    unit: '{attempt}',
    description: 'Push delivery attempts, by outcome (delivered, retry, rejected)',
  },
  pushLag: {
    name: 'a2a_once.push.delivery.lag',
    kind: 'histogram',
    unit: 's',
    description: 'From the timestamp of a delivered event (its task status) to the webhook acknowledging it',
  },
  recoveries: {
    name: 'a2a_once.recovery.takeovers',
    kind: 'counter',
    unit: '{task}',
    description: 'Tasks whose worker was lost, taken over here, by outcome (resumed, failed)',
  },
  liveKeys: {
    name: 'a2a_once.keys.live',
    kind: 'gauge',
    unit: '{key}',
    description: "Idempotency keys the store holds live (not tombstones), every scope's together",
  },
} as const satisfies Record<string, MetricDefinition>;

/** Every metric, by name. */
export const METRICS_BY_NAME: ReadonlyMap<string, MetricDefinition> = new Map(
  Object.values(METRIC).map((m) => [m.name, m]),
);

/** `a2a_once.outcome`: how a call, a delivery attempt or a takeover ended. */
export const OUTCOME_ATTR = 'a2a_once.outcome';
