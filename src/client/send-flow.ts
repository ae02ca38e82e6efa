/**
 * A blocking (or `returnImmediately`) SendMessage, sent once per logical send (SEMANTICS §7): planned, recorded,
 * attempted with the retry loop at the plan's safety, and concluded.
 */
import type { SendMessageResponse } from '../protocol/model.js';
import type { MessageInput, SendOptions } from './options.js';
import { readSendResponse } from './parse-results.js';
import type { RetryState } from './retry-loop.js';
import { concludeFailure, planSend, recordIntent, settleIntent } from './send-plan.js';
import type { SendContext, SendPlan } from './send-plan.js';

/** Sends a planned message. */
export async function sendPlanned(
  ctx: SendContext,
  plan: SendPlan,
  opts: SendOptions,
): Promise<SendMessageResponse> {
  const state: RetryState = { attempts: 0, mayHaveReached: false };
  let response: SendMessageResponse;
  try {
    const raw = await ctx.conn.unary(
      'SendMessage',
      { ...plan.request },
      plan.safety,
      opts,
      plan.extensions,
      state,
    );
    response = readSendResponse(raw);
  } catch (err) {
    throw await concludeFailure(ctx, plan, err, state);
  }
  await settleIntent(
    ctx,
    plan,
    'task' in response ? { status: 'answered', taskId: response.task.id } : { status: 'answered' },
  );
  return response;
}

/** Plans, records and sends one message. */
export async function sendMessage(
  ctx: SendContext,
  input: MessageInput,
  opts: SendOptions,
): Promise<SendMessageResponse> {
  const plan = planSend(ctx, input, opts);
  await recordIntent(ctx, plan, false);
  return sendPlanned(ctx, plan, opts);
}
