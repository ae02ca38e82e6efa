/**
 * Options of an a2a-once server and their defaults (docs/semantics.md §2 "Defaults").
 */
import type { AgentCard } from '../protocol/agent-card.js';
import { systemClock, type Clock } from '../store/clock.js';
import { MemoryTaskStore } from '../store/memory/memory-task-store.js';
import { DEFAULT_KEY_TTL_MS } from '../store/retention.js';
import type { TaskStore } from '../store/task-store.js';
import type { AgentExecutor } from './agent-executor.js';
import type { CallContext } from './call-context.js';
import {
  resolveDelegationSettings,
  type DelegationOptions,
  type DelegationSettings,
} from './delegation/delegation-chain.js';
import type { AgentCardInit } from './card.js';
import type { CardSigningOptions } from './card-signer.js';
import { jsonLineLogger, type ServerLogger } from './observability/logger.js';
import { withTraceIds } from './observability/trace-log.js';
import type { Telemetry } from '../telemetry/telemetry.js';
import { noopMetrics, type ServerMetrics } from './observability/metrics.js';
import type { PushDeliveryOptions } from './push/push-options.js';
import type { RecoveryOptions } from './recovery/recovery-schedule.js';
import type { RetentionScheduleOptions } from './retention/retention-schedule.js';
import { checkAgentErrorMessage, type AgentErrorMessage } from './runner/agent-failure.js';
import { DEFAULT_MAX_STEP_RESULT_BYTES } from './runner/durable-step.js';
import { checkLeaseMs, DEFAULT_LEASE_MS } from './runner/turn-lease.js';

/** Everything a host configures. Only `agent` and `card` are required. */
export interface A2AServerOptions {
  /** The agent. */
  agent: AgentExecutor;
  /**
   * Older A2A versions served besides 1.0, translated at the binding edge into the same handler (default none).
   * `['0.3']`: v0.3 JSON-RPC method names and shapes (docs/guides/v03-peers.md, ADR 0097, ADR 0098).
   */
  compat?: readonly '0.3'[];
  /** What the card says; interfaces default to JSON-RPC at `/` and HTTP+JSON at the root of the serving origin. */
  card: AgentCardInit;
  /**
   * A gRPC interface to list on the card after the default JSON-RPC and HTTP+JSON ones (A2A §10; `url` is
   * `host:port`, no scheme), for a host serving `a2a-once/server/grpc` beside HTTP (docs/guides/grpc.md). Not
   * used when the card declares its own `supportedInterfaces`.
   */
  grpcInterface?: { url: string; tenant?: string };
  /** The extended card for authenticated callers (needs `capabilities.extendedAgentCard`). */
  extendedCard?: AgentCard | ((ctx: CallContext) => AgentCard | Promise<AgentCard>);
  /** Signs the public and the extended card with these keys and serves their JWKS (A2A §8.4, ADR 0074). */
  cardSigning?: CardSigningOptions;
  /** Where tasks and keys live (default: a bounded in-memory store). */
  store?: TaskStore;
  clock?: Clock;
  /** How long a key protects retries (default 24 h). A key never expires before its task. */
  keyTtlMs?: number;
  /**
   * Live keys one scope (tenant + principal) may hold before its new keyed sends get 503 + Retry-After.
   * Tombstones do not count. Default: 100,000 on a store that keeps keys in memory, where the cap bounds the
   * process's memory; none on a store that keeps them on disk (SQLite, PostgreSQL), where retention bounds them
   * (ADR 0047). `false`: no cap on any store.
   */
  maxKeysPerScope?: number | false;
  /** A retry after its key expired: `refuse` (default, docs/semantics.md §2) or `treat-as-new` (a2a-rust's behaviour). */
  expiredKeys?: 'refuse' | 'treat-as-new';
  /** Longest a blocking send waits before answering with the current snapshot (default 60 s). */
  blockingTimeoutMs?: number;
  /** How long a `returnImmediately` send waits for the agent's first report before answering SUBMITTED (50 ms). */
  returnImmediatelyGraceMs?: number;
  /** Push configs one task may hold; one more is refused with PUSH_CONFIG_LIMIT (default 16; ADR 0032). */
  maxPushConfigsPerTask?: number;
  /**
   * Retention on a schedule inside the server, led by one process among those sharing the store (default: on,
   * every 60 s; `false` turns it off, for hosts that run `a2a-once sweep` themselves). See ADR 0035.
   */
  retention?: false | RetentionScheduleOptions;
  /**
   * The lease a worker holds on the task it runs, renewed every third of it (default 30 s; at least 10 ms). A
   * task whose lease lapsed lost its worker and is recovered (ADR 0037).
   */
  leaseMs?: number;
  /**
   * Recovery of tasks whose worker was lost, at start-up and every half lease (default: on). `false` turns the
   * schedule off; a task a request touches is still recovered. See ADR 0037.
   */
  recovery?: false | RecoveryOptions;
  /** The largest result a durable step may record, in bytes of JSON (default 256 KiB; ADR 0038). */
  maxStepResultBytes?: number;
  /**
   * How long a write the store fails (throws) is retried, the same write each time, before it is given up
   * (default 10 s): an agent's writes (ADR 0029), and a send's claim-and-create or continuation (ADR 0052). 0
   * tries once.
   */
  storeWriteBudgetMs?: number;
  /**
   * Push delivery (docs/semantics.md §5, ADR 0045): the server delivers every event of a task to its webhooks,
   * with these settings (signing secret, private targets, timeouts). `false` turns delivery off, as does a card
   * that says `pushNotifications: false`; otherwise the card says `pushNotifications: true`. The card's flag is
   * derived, like the idempotency advertisement: it declares only what the server does (ADR 0057).
   */
  push?: false | PushDeliveryOptions;
  /** How deep a delegation chain may go through this server, and the default budget of a child (ADR 0061). */
  delegation?: DelegationOptions;
  /**
   * The status message of a task whose agent threw (ADR 0081). `generic` (default): "The agent failed (error id
   * err_…)…", the error's message and stack only in the log line with that id. `expose`: the message too (for
   * development; never the stack). A function chooses the text (return `undefined` for the generic one). The
   * error id is in the status message's metadata under `a2a-once.dev/error-id` whatever the choice.
   */
  agentErrorMessage?: AgentErrorMessage;
  metrics?: ServerMetrics;
  logger?: ServerLogger;
  /**
   * Spans and W3C trace context (ADR 0091): `openTelemetry()` from `a2a-once/otel`. Default: none, and no
   * telemetry code runs. With it, log lines written while a span is active carry `trace_id` and `span_id`.
   */
  telemetry?: Telemetry;
}

/** Options with every default applied. */
export interface ResolvedServerOptions {
  readonly agent: AgentExecutor;
  readonly card: AgentCardInit;
  readonly grpcInterface: A2AServerOptions['grpcInterface'];
  readonly extendedCard: A2AServerOptions['extendedCard'];
  readonly cardSigning: CardSigningOptions | undefined;
  readonly store: TaskStore;
  readonly clock: Clock;
  readonly keyTtlMs: number;
  /** Undefined: no cap. */
  readonly maxKeysPerScope: number | undefined;
  readonly expiredKeys: 'refuse' | 'treat-as-new';
  readonly blockingTimeoutMs: number;
  readonly returnImmediatelyGraceMs: number;
  readonly maxPushConfigsPerTask: number;
  readonly retention: false | RetentionScheduleOptions;
  readonly leaseMs: number;
  readonly recovery: false | RecoveryOptions;
  readonly maxStepResultBytes: number;
  readonly storeWriteBudgetMs: number;
  readonly push: false | PushDeliveryOptions;
  readonly delegation: DelegationSettings;
  readonly agentErrorMessage: AgentErrorMessage;
  readonly metrics: ServerMetrics;
  readonly logger: ServerLogger;
  readonly telemetry: Telemetry | undefined;
}

/** Applies defaults. */
export function resolveServerOptions(o: A2AServerOptions): ResolvedServerOptions {
  const clock = o.clock ?? systemClock;
  const store = o.store ?? new MemoryTaskStore({ clock });
  return {
    agent: o.agent,
    card: o.card,
    grpcInterface: o.grpcInterface,
    extendedCard: o.extendedCard,
    cardSigning: o.cardSigning,
    store,
    clock,
    keyTtlMs: o.keyTtlMs ?? DEFAULT_KEY_TTL_MS,
    maxKeysPerScope: keyCapOf(o.maxKeysPerScope, store),
    expiredKeys: o.expiredKeys ?? 'refuse',
    blockingTimeoutMs: o.blockingTimeoutMs ?? 60_000,
    returnImmediatelyGraceMs: o.returnImmediatelyGraceMs ?? 50,
    maxPushConfigsPerTask: o.maxPushConfigsPerTask ?? 16,
    retention: o.retention ?? {},
    leaseMs: checkLeaseMs(o.leaseMs ?? DEFAULT_LEASE_MS),
    recovery: o.recovery ?? {},
    maxStepResultBytes: positiveWhole(
      'maxStepResultBytes',
      o.maxStepResultBytes ?? DEFAULT_MAX_STEP_RESULT_BYTES,
    ),
    storeWriteBudgetMs: wholeAtLeastZero('storeWriteBudgetMs', o.storeWriteBudgetMs ?? 10_000),
    push: o.push ?? {},
    delegation: resolveDelegationSettings(o.delegation),
    agentErrorMessage: checkAgentErrorMessage(o.agentErrorMessage ?? 'generic'),
    metrics: o.metrics ?? noopMetrics,
    // Warn and error on stderr (ADR 0029); pass silentLogger for none. Trace ids added only with telemetry.
    logger: withTraceIds(o.logger ?? jsonLineLogger(), o.telemetry),
    telemetry: o.telemetry,
  };
}

/** The memory store's default key cap per scope (docs/semantics.md §2). */
export const DEFAULT_MEMORY_KEY_CAP = 100_000;

/** The per-scope key cap: the one given, none for `false`, else by where the store keeps keys (ADR 0047). */
function keyCapOf(given: number | false | undefined, store: TaskStore): number | undefined {
  if (given === false) return undefined;
  if (given !== undefined) return positiveWhole('maxKeysPerScope', given);
  return store.capabilities.keysOnDisk === true ? undefined : DEFAULT_MEMORY_KEY_CAP;
}

function positiveWhole(name: string, n: number): number {
  if (!Number.isSafeInteger(n) || n <= 0) throw new RangeError(`${name} must be a positive whole number`);
  return n;
}

function wholeAtLeastZero(name: string, n: number): number {
  if (!Number.isSafeInteger(n) || n < 0)
    throw new RangeError(`${name} must be a whole number >= 0, got ${n}`);
  return n;
}
