/**
 * What the client commands (send, get, tasks, cancel, card) share: their common options, how they open a client
 * for a URL, how they say that a call is being retried, and how they report a failure (exit 1; 3 for an outcome
 * unknown, so scripts can tell it apart).
 */
import type { Command } from 'commander';
import { A2AClient, OutcomeUnknownError, describeError } from '../client/index.js';
import type { RetryEvent } from '../client/index.js';
import { agentUrlProblem } from '../client/connection/agent-url.js';
import { redactKeys } from '../idempotency/index.js';
import { UsageError, choiceOption, durationOption } from './args.js';
import type { CliIO } from './io.js';
import { debugEnabled, subcommand } from './program.js';

/** Exit code of a send whose outcome is unknown. */
export const EXIT_OUTCOME_UNKNOWN = 3;

/**
 * Exit codes of a send whose task ended without success, so a script can tell what the agent did from what the
 * call did (1, 2 and 3 are the call's own: failed, misused, unknown). Documented in docs/guides/configuration.md.
 */
export const EXIT_TASK_FAILED = 4;
export const EXIT_TASK_CANCELED = 5;
export const EXIT_TASK_REJECTED = 6;

/** The exit code for a send whose task is in `state`: 0 unless it ended FAILED, CANCELED or REJECTED. */
export function exitCodeOfState(state: string): number {
  if (state === 'TASK_STATE_FAILED') return EXIT_TASK_FAILED;
  if (state === 'TASK_STATE_CANCELED') return EXIT_TASK_CANCELED;
  if (state === 'TASK_STATE_REJECTED') return EXIT_TASK_REJECTED;
  return 0;
}

/**
 * Prints an answer as one JSON line, its idempotency keys redacted (`redactKeys`): a task's history holds the
 * keyed messages it was sent, and output that goes to a terminal, a pipe or a CI log is no place for them.
 */
export function printJson(io: CliIO, value: unknown): void {
  io.out(JSON.stringify(redactKeys(value)));
}

/** The options every client command takes, as commander parsed them. */
export interface ClientOptions {
  timeout?: string;
  binding?: string;
  json?: boolean;
  /** False with `--no-retry`. */
  retry: boolean;
}

const BINDINGS = ['JSONRPC', 'HTTP+JSON'] as const;

/** `a2a-once NAME URL ...` with the options every client command takes. */
export function clientCommand(io: CliIO, name: string, summary: string): Command {
  return subcommand(io, name, summary)
    .argument('<url>', "the agent's base URL (its card is read from there) or a bare JSON-RPC endpoint")
    .option(
      '--timeout <duration>',
      'give up on the whole call after this long, retries included (default: none)',
    )
    .option('--binding <binding>', `use this binding: ${BINDINGS.join(' or ')} (default: the card's first)`)
    .option('--json', 'print JSON (one object per line) instead of text')
    .option('--no-retry', 'make one attempt per call: no retries');
}

/** Opens a client for `url`: its card if it has one, else a bare JSON-RPC endpoint. */
export async function openClient(
  url: string,
  o: ClientOptions,
  io: CliIO,
  command: string,
): Promise<A2AClient> {
  // A URL without a scheme is the caller's typo, not a failed connection (exit 2, with the URL meant).
  const problem = agentUrlProblem(url);
  if (problem !== undefined) throw new UsageError(`<url>: ${problem}`);
  const timeoutMs = o.timeout === undefined ? undefined : durationOption('timeout', o.timeout, 1);
  const binding = o.binding === undefined ? undefined : choiceOption('binding', o.binding, BINDINGS);
  return A2AClient.connect(url, {
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(binding !== undefined ? { binding, preferredBindings: [binding] } : {}),
    // Retries are announced on a terminal, and stay quiet in scripts and pipes.
    retry: o.retry ? (io.isTTY ? { onRetry: (e) => io.err(retryLine(command, e)) } : {}) : false,
  });
}

/** `a2a-once send: attempt 1 of 4 failed (UNAVAILABLE ...); trying again in 0.4 s`. */
export function retryLine(command: string, e: RetryEvent): string {
  const wait = e.delayMs < 1000 ? `${e.delayMs} ms` : `${(e.delayMs / 1000).toFixed(1)} s`;
  const asked =
    e.retryAfterMs === undefined ? '' : ` (the agent asked to wait ${Math.ceil(e.retryAfterMs / 1000)} s)`;
  return (
    `${command}: attempt ${e.attempt} of ${e.maxAttempts} failed (${describeError(e.error)}); ` +
    `trying again in ${wait}${asked}`
  );
}

/**
 * Prints a failure (a JSON object on stderr with `--json`) and returns the exit code. A `UsageError` is thrown
 * on, to `runCommand`, which prints it with the usage line.
 */
export function reportFailure(err: unknown, io: CliIO, json: boolean, command: string): number {
  if (err instanceof UsageError) throw err;
  const code = err instanceof OutcomeUnknownError ? EXIT_OUTCOME_UNKNOWN : 1;
  if (json) {
    const body: Record<string, unknown> = {
      error: err instanceof Error ? err.name : 'Error',
      message: describeError(err),
    };
    if (err instanceof OutcomeUnknownError)
      Object.assign(body, { messageId: err.messageId, keyHash: err.keyHash, taskId: err.taskId });
    io.err(JSON.stringify(body));
  } else {
    io.err(`${command}: ${describeError(err)}`);
    if (debugEnabled() && err instanceof Error && err.stack !== undefined) io.err(err.stack);
  }
  return code;
}
