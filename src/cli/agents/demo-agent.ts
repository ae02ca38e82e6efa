/**
 * The shape every built-in demo agent shares, so `a2a-once serve --agent NAME` can treat them alike.
 */
import type { AgentCard } from '../../protocol/agent-card.js';
import type { AgentExecutor } from '../../server/agent-executor.js';
import type { AgentCardInit } from '../../server/card.js';
import type { Telemetry } from '../../telemetry/telemetry.js';
import type { EffectsLog } from './effects-log.js';

/** A ready-to-serve agent: its executor, its card and, when it has one, its extended card. */
export interface DemoAgent {
  readonly executor: AgentExecutor;
  readonly card: AgentCardInit;
  /** Served by GetExtendedAgentCard when the card declares `capabilities.extendedAgentCard`. */
  readonly extendedCard?: AgentCard;
}

/** Options the demo agents understand; each agent ignores what it has no use for. */
export interface DemoAgentOptions {
  /** Records one line per execution, so tests can count runs from outside the process. */
  readonly effectsLog?: EffectsLog;
  /** How long the slow agent works before completing (default 500 ms). */
  readonly delayMs?: number;
  /**
   * The TCK agent's switch for push notifications (default false): its cards then say
   * `pushNotifications: false`, which turns delivery off, for the TCK's "push not supported" runs. The other
   * agents declare nothing, and their card's flag says what the server does (ADR 0057).
   */
  readonly pushNotifications?: boolean;
  /** The server's telemetry, for the clients an agent builds for its children (their sends carry traceparent). */
  readonly telemetry?: Telemetry;
}
