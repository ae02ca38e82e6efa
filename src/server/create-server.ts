/**
 * One call to get a working server: the request handler plus its HTTP surface.
 */
import { observeLiveKeys } from './observability/live-keys-gauge.js';
import { A2ARequestHandler } from './a2a-request-handler.js';
import { secureServerCards } from './auth/server-cards.js';
import { createFetchHandler, type FetchHandler } from './http/fetch-handler.js';
import { resolveHttpOptions, type HttpOptions, type ResolvedHttpOptions } from './http/http-options.js';
import type { RequestHandler } from './request-handler.js';
import type { A2AServerOptions } from './options.js';
import { RecoverySchedule } from './recovery/recovery-schedule.js';
import { RetentionSchedule } from './retention/retention-schedule.js';
import type { ResumeOptions, ResumeResult, ResumeTarget } from './task-resume.js';
import { DrainGate } from './http/probes/drain-gate.js';
import {
  boundedCheck,
  gatherReadiness,
  READY_STORE_TIMEOUT_MS,
  schemaCheck,
  type Readiness,
} from './http/probes/probes.js';
import { shutDown, type CloseOptions } from './shutdown.js';
import { DEFAULT_SCOPE } from '../store/scope.js';

export type { CloseOptions } from './shutdown.js';

/** An a2a-once server, not yet bound to a socket. */
export interface A2AServer {
  /** The transport-agnostic operations (call them directly in tests or from another binding). */
  readonly handler: A2ARequestHandler;
  /** The HTTP surface as `(Request) => Promise<Response>`. */
  readonly fetch: FetchHandler;
  /**
   * What another binding calls, for `a2a-once/server/grpc`: the operations behind the drain gate (so a
   * shutdown refuses its sends and ends its streams like the HTTP ones) and the HTTP options resolved (who may
   * call, the versions served), so every binding admits a call the same way.
   */
  readonly binding: { readonly handler: RequestHandler; readonly options: ResolvedHttpOptions };
  /** Retention on a schedule (ADR 0035), or undefined when the host turned it off (`retention: false`). */
  readonly retention: RetentionSchedule | undefined;
  /**
   * Recovery of tasks whose worker was lost, at start-up (`recovery.startup` resolves with what it did) and
   * every half lease (ADR 0037); undefined when the host turned it off (`recovery: false`).
   */
  readonly recovery: RecoverySchedule | undefined;
  /**
   * Resumes a task waiting in AUTH_REQUIRED whose credential arrived out of band (A2A §7.6, ADR 0054); see
   * `A2ARequestHandler.resumeTask`.
   */
  resumeTask(target: ResumeTarget, options?: ResumeOptions): Promise<ResumeResult>;
  /** What `/readyz` answers (ADR 0089): the store answers in time, start-up recovery is done, not draining. */
  readiness(): Promise<Readiness>;
  /** Whether `close` began: new sends are refused with 503 and `Retry-After` (ADR 0088). */
  readonly draining: boolean;
  /**
   * Shuts down gracefully (ADR 0088): refuses new sends at once (503, `Retry-After`, nothing ran), stops the
   * schedules, lets running turns finish for up to `graceMs` (default 10 s), then gives up the rest (their leases
   * are shortened so another replica takes them over), answers blocking sends still waiting with their task's
   * latest state, ends open streams, and closes the store. Resolves within the grace plus a small margin, even
   * with an agent that never returns. Calling it again returns the same promise.
   */
  close(options?: CloseOptions): Promise<void>;
}

/**
 * Creates a server.
 * @example
 * const server = createA2AServer({ agent: { execute: async (ctx) => ctx.complete(`echo: ${ctx.userText}`) },
 *   card: { name: 'echo', description: 'Echoes' } });
 * const res = await server.fetch(new Request('http://localhost/.well-known/agent-card.json'));
 */
export function createA2AServer(options: A2AServerOptions & { http?: HttpOptions }): A2AServer {
  // The cards declare the authenticator's schemes before anything else reads them (ADR 0076).
  const handler = new A2ARequestHandler(secureServerCards(options, options.http?.authenticate));
  const gate = new DrainGate();
  const o = handler.options;
  let recoveryDone = false;
  const readiness = () =>
    gatherReadiness({
      // A cheap read of a task nobody has: it touches the tables, so a missing schema fails it too.
      store: () =>
        boundedCheck(() => o.store.getTask(DEFAULT_SCOPE, 'a2a-once-readiness'), READY_STORE_TIMEOUT_MS),
      // Migrations current: a schema behind this code would refuse writes it needs (stores without one pass).
      schema: () => schemaCheck(o.store, READY_STORE_TIMEOUT_MS),
      recovery: () => (recoveryDone ? { ok: true } : { ok: false, detail: 'start-up recovery is running' }),
      draining: () => (gate.draining ? { ok: false, detail: 'the server is shutting down' } : { ok: true }),
    });
  const guarded = gate.guard(handler);
  const fetch = createFetchHandler(guarded, options.http, readiness, options.compat);
  const binding = { handler: guarded, options: resolveHttpOptions(options.http, options.compat) };
  const retention = o.retention === false ? undefined : new RetentionSchedule(o.store, o.logger, o.retention);
  retention?.start();
  const recovery =
    o.recovery === false
      ? undefined
      : new RecoverySchedule(handler.recovery, o.logger, o.recovery.intervalMs ?? o.leaseMs / 2);
  recovery?.start();
  if (recovery === undefined) recoveryDone = true;
  else
    void recovery.startup.then(
      () => (recoveryDone = true),
      () => (recoveryDone = true),
    );
  // Push delivery (ADR 0045): at once, for what a previous process left undelivered.
  handler.push?.start();
  // The store's live keys as a gauge, when the metrics sink keeps gauges (ADR 0094).
  observeLiveKeys(o.metrics, o.store);
  let closing: Promise<void> | undefined;
  return {
    handler,
    fetch,
    binding,
    retention,
    recovery,
    resumeTask: (target, options) => handler.resumeTask(target, options),
    readiness,
    get draining() {
      return gate.draining;
    },
    close: (closeOptions) =>
      (closing ??= shutDown({ handler, gate, recovery, retention }, closeOptions ?? {})),
  };
}
