/**
 * One call to get a working server: the request handler plus its HTTP surface.
 */
import { A2ARequestHandler } from './a2a-request-handler.js';
import { secureServerCards } from './auth/server-cards.js';
import { createFetchHandler, type FetchHandler } from './http/fetch-handler.js';
import type { HttpOptions } from './http/http-options.js';
import type { A2AServerOptions } from './options.js';
import { RecoverySchedule } from './recovery/recovery-schedule.js';
import { RetentionSchedule } from './retention/retention-schedule.js';
import type { ResumeOptions, ResumeResult, ResumeTarget } from './task-resume.js';

/** An a2a-once server, not yet bound to a socket. */
export interface A2AServer {
  /** The transport-agnostic operations (call them directly in tests or from another binding). */
  readonly handler: A2ARequestHandler;
  /** The HTTP surface as `(Request) => Promise<Response>`. */
  readonly fetch: FetchHandler;
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
  /** Stops the schedules, waits for running agent turns, then closes the store. */
  close(): Promise<void>;
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
  const fetch = createFetchHandler(handler, options.http);
  const o = handler.options;
  const retention = o.retention === false ? undefined : new RetentionSchedule(o.store, o.logger, o.retention);
  retention?.start();
  const recovery =
    o.recovery === false
      ? undefined
      : new RecoverySchedule(handler.recovery, o.logger, o.recovery.intervalMs ?? o.leaseMs / 2);
  recovery?.start();
  // Push delivery (ADR 0045): at once, for what a previous process left undelivered.
  handler.push?.start();
  return {
    handler,
    fetch,
    retention,
    recovery,
    resumeTask: (target, options) => handler.resumeTask(target, options),
    close: async () => {
      await recovery?.stop();
      await retention?.stop();
      await handler.close();
    },
  };
}
