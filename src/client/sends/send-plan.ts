/**
 * Preparing a logical send (docs/semantics.md §7): the key and, for a keyed send, the tenant are decided once, before
 * any attempt, and every attempt resends the identical message to that tenant (ADR 0034). Also the ending of a
 * failed send: a definite answer settles the recorded intent; a failure that may have reached the peer (in this
 * run, or in the run that recorded a recovered intent) becomes `OutcomeUnknownError` and leaves the intent
 * pending for `recoverPending`. The client's own bookkeeping never turns a send that ran into a failure
 * (ADR 0068): an outbox that cannot settle an answer is logged and the answer stands; an answer the client cannot
 * read is an outcome unknown, not a refusal.
 */
import { A2AError } from '../../protocol/errors.js';
import type { Message } from '../../protocol/model.js';
import type { SendMessageRequest } from '../../protocol/requests.js';
import { IDEMPOTENCY_EXTENSION_URI, keyHash, keyOf, mintKey, setKey } from '../../idempotency/index.js';
import { ClientError } from '../connection/client-error.js';
import type { TenantPin } from '../connection/interface-route.js';
import type { IntentOutcome, IntentStore } from '../intents/intent-store.js';
import type { MessageInput, SendOptions } from './send-options.js';
import { toMessage } from './send-options.js';
import { messageIdForKey } from './message-id.js';
import { OutcomeUnknownError } from './outcome-unknown-error.js';
import type { RetryState } from '../retry/retry-loop.js';
import type { CallSafety } from '../retry/retry-policy.js';
import { failureKindOf } from '../transport/failure-kind.js';
import type { ClientLogger, LogFields } from './client-logger.js';

/** What the client knows when it decides how to send (no connection: planning does no I/O to the peer). */
export interface SendPolicy {
  readonly peerHonoursKeys: boolean;
  readonly keys: 'auto' | 'off';
  readonly intents: IntentStore | undefined;
  /** Which agent, for intents. */
  readonly target: string;
  /** Where failures the caller is not handed are reported (ADR 0068). */
  readonly logger: ClientLogger;
}

/** A logical send, fixed before its first attempt. */
export interface SendPlan {
  readonly message: Message;
  readonly key: string | undefined;
  readonly request: SendMessageRequest;
  readonly safety: CallSafety;
  /** Extensions to activate: the idempotency URI for a keyed send. */
  readonly extensions: readonly string[];
  /** A keyed send's tenant, where every attempt goes (a key is scoped to its tenant: ADR 0034). */
  readonly pin: TenantPin | undefined;
  /**
   * A resend of an intent an earlier run recorded: attempts this run cannot see may have reached the peer, so
   * no failure of this run proves it never ran.
   */
  readonly resumed: boolean;
}

/**
 * Decides the key and builds the request. A key already in the message wins; a different explicit key is a
 * caller bug and is refused rather than silently replacing one of them. A keyed send the caller gave no messageId
 * gets the one derived from its key (`message-id.ts`), so the same send made again is a replay, not a conflict.
 *
 * `tenant` is the tenant of the interface the send starts on; a keyed send is bound to it.
 *
 * @throws {KeyFormatError} for a malformed key (in the message or in `opts.key`).
 */
export function planSend(
  ctx: SendPolicy,
  input: MessageInput,
  opts: SendOptions,
  tenant: string | undefined,
): SendPlan {
  let message = toMessage(input);
  let key = keyOf(message);
  const wanted = opts.key ?? 'auto';
  if (key !== undefined) {
    if (typeof wanted === 'string' && wanted !== 'auto' && wanted !== key) {
      throw new ClientError('INVALID_ARGUMENT', 'the message already carries a different idempotency key');
    }
  } else if (typeof wanted === 'string' && wanted !== 'auto') {
    message = setKey(message, wanted);
    key = wanted;
  } else if (wanted === 'auto' && ctx.keys === 'auto' && ctx.peerHonoursKeys) {
    // Minted once per logical send, never per attempt (docs/semantics.md §7).
    key = mintKey();
    message = setKey(message, key);
  }
  if (key !== undefined && (typeof input === 'string' || input.messageId === undefined)) {
    message = { ...message, messageId: messageIdForKey(key) };
  }
  const request: SendMessageRequest = { message };
  if (opts.configuration !== undefined) request.configuration = opts.configuration;
  if (opts.metadata !== undefined) request.metadata = opts.metadata;
  return {
    message,
    key,
    request,
    // A key is evidence only with a peer that honours it (ADR 0020: a JS/Python/Go server ignores it).
    safety: key !== undefined && ctx.peerHonoursKeys ? 'keyed-send' : 'unsafe',
    extensions: key !== undefined ? [IDEMPOTENCY_EXTENSION_URI] : [],
    pin: key !== undefined ? { tenant } : undefined,
    resumed: false,
  };
}

/** What a log line says about a send: never its key, only the key's hash (docs/semantics.md §1). */
export function sendFields(ctx: SendPolicy, plan: SendPlan): LogFields {
  return {
    keyHash: plan.key === undefined ? undefined : keyHash(plan.key),
    messageId: plan.message.messageId,
    target: ctx.target,
  };
}

/**
 * Records the intent of a keyed send before its first attempt, with the tenant it is bound to.
 *
 * @throws {ClientError} `INTENT_NOT_RECORDED` when the store fails: nothing was sent, so the caller may send again.
 */
export async function recordIntent(ctx: SendPolicy, plan: SendPlan, streaming: boolean): Promise<void> {
  if (ctx.intents === undefined || plan.key === undefined) return;
  const tenant = plan.pin?.tenant;
  try {
    await ctx.intents.record({
      key: plan.key,
      messageId: plan.message.messageId,
      target: ctx.target,
      request: tenant === undefined ? plan.request : { ...plan.request, tenant },
      streaming,
      createdAt: Date.now(),
    });
  } catch (err) {
    throw new ClientError(
      'INTENT_NOT_RECORDED',
      `the intent store could not record message ${plan.message.messageId}, so it was not sent`,
      { cause: err },
    );
  }
}

/**
 * Settles the intent of a keyed send. Never throws: the answer has arrived and is the caller's, whatever the
 * outbox does (ADR 0068). A store that fails is logged and the intent stays pending; `recoverPending` resends it
 * with its key, and the replay settles it.
 */
export async function settleIntent(ctx: SendPolicy, plan: SendPlan, outcome: IntentOutcome): Promise<void> {
  if (ctx.intents === undefined || plan.key === undefined) return;
  try {
    await ctx.intents.settle({ target: ctx.target, tenant: plan.pin?.tenant, key: plan.key }, outcome);
  } catch (err) {
    ctx.logger.error(
      'the intent store could not settle a keyed send; its answer stands, the intent stays pending, and ' +
        'recoverPending() will resend it with its key (a replay) to settle it',
      { ...sendFields(ctx, plan), outcome: outcome.status, error: err },
    );
  }
}

/**
 * The error a send ends with when the peer answered but the client cannot read the answer (a task state it does
 * not know, a field of another shape): the peer may have run it, so the outcome is unknown, never a refusal, and
 * the intent stays pending (ADR 0068). Not resent: the same answer would most likely come back.
 */
export function unreadableAnswer(
  ctx: SendPolicy,
  plan: SendPlan,
  cause: unknown,
  taskId?: string,
): OutcomeUnknownError {
  ctx.logger.warn('the peer answered a send with something this client cannot read; the send may have run', {
    ...sendFields(ctx, plan),
    error: cause,
  });
  return new OutcomeUnknownError({
    messageId: plan.message.messageId,
    key: plan.key,
    taskId,
    peerHonoursKeys: ctx.peerHonoursKeys,
    answerUnreadable: true,
    cause,
  });
}

/**
 * The error a failed send ends with, settling its intent when the outcome is known:
 * - a definite A2A answer: the error itself (intent settled as rejected);
 * - nothing may have reached the peer: the failure itself (intent settled as not sent);
 * - something may have, in this run or (for a recovered intent) in the run that recorded it:
 *   `OutcomeUnknownError` (intent left pending).
 */
export async function concludeFailure(
  ctx: SendPolicy,
  plan: SendPlan,
  err: unknown,
  state: RetryState,
  taskId?: string,
): Promise<unknown> {
  // Already concluded (an unreadable answer mid-stream): the intent stays pending.
  if (err instanceof OutcomeUnknownError) return err;
  const kind = failureKindOf(err);
  if (kind === 'definite' && err instanceof A2AError) {
    await settleIntent(ctx, plan, { status: 'rejected', reason: err.reason });
    return err;
  }
  if (!state.mayHaveReached && !plan.resumed) {
    await settleIntent(ctx, plan, { status: 'not-sent' });
    return err;
  }
  return new OutcomeUnknownError({
    messageId: plan.message.messageId,
    key: plan.key,
    taskId,
    peerHonoursKeys: ctx.peerHonoursKeys,
    cause: err,
  });
}
