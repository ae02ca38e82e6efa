/**
 * What a caller is told when an agent's turn throws (ADR 0081). The error's text is the agent's own: it may
 * name a database, a path, a secret, and its stack names the code. By default it stays in the server's log,
 * under a fresh error id, and the caller reads a generic status message naming that id (also in the status
 * message's metadata, for programs), so an operator can find the line a caller quotes. A host may expose the
 * message (`expose`, for development) or choose the text per error; an agent sends a reason meant for its
 * caller with `ctx.fail(text)`.
 *
 * Three errors are the caller's business whatever the option, because a2a-once raised them about the delegation
 * the caller's send belongs to, in fixed words written for a caller: a malformed delegation entry on the turn's
 * own message (`DelegationLimitsError`), a chain too deep (`DELEGATION_DEPTH_EXCEEDED`), and a child agent that
 * could not be reached (`PeerUnavailableError`, whose cause, naming the child's address, stays in the log).
 */
import { randomBytes } from 'node:crypto';
import { DelegationLimitsError } from '../../delegation/index.js';
import { PeerUnavailableError } from '../delegation/peer-source.js';
import { A2A_ONCE_ERROR_DOMAIN, A2AError } from '../../protocol/errors.js';
import type { Message } from '../../protocol/model.js';
import { DELEGATION_DEPTH_EXCEEDED } from '../delegation/delegation-chain.js';
import { errorFields, logSafely } from '../observability/error-log.js';
import type { ServerLogger } from '../observability/logger.js';

/** The metadata entry of a failed task's status message that holds the error id of its log line. */
export const AGENT_ERROR_METADATA_KEY = 'a2a-once.dev/error-id';

/** What the text chooser of `agentErrorMessage` is told besides the error. */
export interface AgentErrorInfo {
  /** The id the server's log line carries (`err_` and 16 hex digits). */
  readonly errorId: string;
  readonly taskId: string;
  /** The text the `generic` setting sends, naming the error id. */
  readonly genericMessage: string;
}

/**
 * The status message of a task whose agent threw: `generic` (the default) names only the error id; `expose`
 * adds the error's message (never its stack); a function chooses the text (`undefined` for the generic one).
 */
export type AgentErrorMessage =
  'generic' | 'expose' | ((error: unknown, info: AgentErrorInfo) => string | undefined);

/** Checks a host's `agentErrorMessage`. @throws TypeError for anything but the three forms */
export function checkAgentErrorMessage(value: unknown): AgentErrorMessage {
  if (value === 'generic' || value === 'expose' || typeof value === 'function')
    return value as AgentErrorMessage;
  throw new TypeError(
    `agentErrorMessage must be 'generic', 'expose' or a function (error, info) => string, got ${
      typeof value === 'string' ? JSON.stringify(value) : typeof value
    }`,
  );
}

/** A fresh error id: `err_` and 64 random bits in hex. */
export function newErrorId(): string {
  return `err_${randomBytes(8).toString('hex')}`;
}

/** The error's name for a log line: its class's `name`, or the type of a thrown non-error. */
export function errorNameOf(err: unknown): string {
  return err instanceof Error ? err.name : typeof err;
}

/** The generic status text for error `errorId`. */
export function genericFailureText(errorId: string): string {
  return `The agent failed (error id ${errorId}). Its operator can find the cause in the server's log.`;
}

/** The turn whose agent threw. */
export interface FailedTurn {
  readonly taskId: string;
  /** The idempotency key of the turn's message: replaced by its hash in an exposed message. */
  readonly key: string | undefined;
}

/**
 * Logs the failure at `error` (task id, error id, name, message and stack, the key redacted) and returns the
 * status message that fails the task: the chosen text, the error id in its metadata.
 */
export function reportAgentFailure(
  failure: unknown,
  turn: FailedTurn,
  choice: AgentErrorMessage,
  logger: ServerLogger,
): Partial<Message> {
  const errorId = newErrorId();
  const fields = errorFields(failure, turn.key);
  logSafely(logger, 'error', 'agent turn failed', {
    taskId: turn.taskId,
    errorId,
    errorName: errorNameOf(failure),
    ...fields,
  });
  const generic = genericFailureText(errorId);
  const shown = `The agent failed: ${fields.error} (error id ${errorId})`;
  let text = generic;
  if (choice === 'expose' || isCallerFacing(failure)) text = shown;
  else if (typeof choice === 'function') {
    const chosen = chooseText(choice, failure, { errorId, taskId: turn.taskId, genericMessage: generic });
    if (chosen.ok) text = chosen.text ?? generic;
    else
      logSafely(logger, 'error', 'agentErrorMessage threw; the caller gets the generic message', {
        taskId: turn.taskId,
        errorId,
        errorName: errorNameOf(chosen.error),
        ...errorFields(chosen.error, turn.key),
      });
  }
  return { parts: [{ text }], metadata: { [AGENT_ERROR_METADATA_KEY]: errorId } };
}

function chooseText(
  choose: (error: unknown, info: AgentErrorInfo) => string | undefined,
  failure: unknown,
  info: AgentErrorInfo,
): { ok: true; text: string | undefined } | { ok: false; error: unknown } {
  try {
    const text: unknown = choose(failure, info);
    return { ok: true, text: typeof text === 'string' && text !== '' ? text : undefined };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Errors a2a-once raised about the caller's delegation chain, in words written for the caller. */
function isCallerFacing(err: unknown): boolean {
  return (
    err instanceof DelegationLimitsError ||
    err instanceof PeerUnavailableError ||
    (err instanceof A2AError && isDepthRefusal(err))
  );
}

/**
 * `DELEGATION_DEPTH_EXCEEDED`, raised here or answered by a peer's door. A client rebuilds a reason it has no
 * class for by its code (`InvalidParamsError`, -32602), keeping the metadata: the refusal is known by that too.
 */
function isDepthRefusal(err: A2AError): boolean {
  if (err.spec.reason === DELEGATION_DEPTH_EXCEEDED.reason && err.spec.domain === A2A_ONCE_ERROR_DOMAIN)
    return true;
  const m = err.metadata;
  return (
    err.code === DELEGATION_DEPTH_EXCEEDED.code &&
    m?.hop !== undefined &&
    m.maxDepth !== undefined &&
    m.chainId !== undefined
  );
}
