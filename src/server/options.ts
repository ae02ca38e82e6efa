/**
 * Options of an a2a-once server and their defaults (SEMANTICS §2 "Defaults").
 */
import type { AgentCard } from '../protocol/agent-card.js';
import { systemClock, type Clock } from '../store/clock.js';
import { MemoryTaskStore } from '../store/memory/memory-task-store.js';
import { DEFAULT_KEY_TTL_MS } from '../store/retention.js';
import type { TaskStore } from '../store/task-store.js';
import type { AgentExecutor } from './agent-executor.js';
import type { CallContext } from './call-context.js';
import type { AgentCardInit } from './card.js';
import { silentLogger, type ServerLogger } from './observability/logger.js';
import { noopMetrics, type ServerMetrics } from './observability/metrics.js';

/** Everything a host configures. Only `agent` and `card` are required. */
export interface A2AServerOptions {
  /** The agent. */
  agent: AgentExecutor;
  /** What the card says; interfaces default to JSON-RPC at `/` and HTTP+JSON at the root of the serving origin. */
  card: AgentCardInit;
  /** The extended card for authenticated callers (needs `capabilities.extendedAgentCard`). */
  extendedCard?: AgentCard | ((ctx: CallContext) => AgentCard | Promise<AgentCard>);
  /** Where tasks and keys live (default: a bounded in-memory store). */
  store?: TaskStore;
  clock?: Clock;
  /** How long a key protects retries (default 24 h). A key never expires before its task. */
  keyTtlMs?: number;
  /** Keys a tenant may hold before new keyed sends get 503 + Retry-After (default 100,000). */
  maxKeysPerTenant?: number;
  /** A retry after its key expired: `refuse` (default, SEMANTICS §2) or `treat-as-new` (seed 000). */
  expiredKeys?: 'refuse' | 'treat-as-new';
  /** Longest a blocking send waits before answering with the current snapshot (default 60 s). */
  blockingTimeoutMs?: number;
  /** How long a `returnImmediately` send waits for the agent's first report before answering SUBMITTED (50 ms). */
  returnImmediatelyGraceMs?: number;
  metrics?: ServerMetrics;
  logger?: ServerLogger;
}

/** Options with every default applied. */
export interface ResolvedServerOptions {
  readonly agent: AgentExecutor;
  readonly card: AgentCardInit;
  readonly extendedCard: A2AServerOptions['extendedCard'];
  readonly store: TaskStore;
  readonly clock: Clock;
  readonly keyTtlMs: number;
  readonly maxKeysPerTenant: number;
  readonly expiredKeys: 'refuse' | 'treat-as-new';
  readonly blockingTimeoutMs: number;
  readonly returnImmediatelyGraceMs: number;
  readonly metrics: ServerMetrics;
  readonly logger: ServerLogger;
}

/** Applies defaults. */
export function resolveServerOptions(o: A2AServerOptions): ResolvedServerOptions {
  const clock = o.clock ?? systemClock;
  return {
    agent: o.agent,
    card: o.card,
    extendedCard: o.extendedCard,
    store: o.store ?? new MemoryTaskStore({ clock }),
    clock,
    keyTtlMs: o.keyTtlMs ?? DEFAULT_KEY_TTL_MS,
    maxKeysPerTenant: o.maxKeysPerTenant ?? 100_000,
    expiredKeys: o.expiredKeys ?? 'refuse',
    blockingTimeoutMs: o.blockingTimeoutMs ?? 60_000,
    returnImmediatelyGraceMs: o.returnImmediatelyGraceMs ?? 50,
    metrics: o.metrics ?? noopMetrics,
    logger: o.logger ?? silentLogger,
  };
}
