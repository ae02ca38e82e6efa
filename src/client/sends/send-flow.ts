/**
 * A blocking (or `returnImmediately`) SendMessage, sent once per logical send (docs/semantics.md §7): planned, recorded,
 * attempted with the retry loop at the plan's safety, and concluded.
 */
import type { SendMessageResponse } from '../../protocol/model.js';
import type { MessageInput, SendOptions } from './send-options.js';
import { readSendResponse } from '../transport/parse-results.js';
import type { RetryState } from '../retry/retry-loop.js';
import { concludeFailure, planSend, recordIntent, settleIntent, unreadableAnswer } from './send-plan.js';
import type { SendPlan, SendPolicy } from './send-plan.js';
import type { Connection } from '../connection/connection.js';
import { admissionListener } from './admission.js';

/** What the client knows when it sends: its policy, and the connection to send over. */
export interface SendContext extends SendPolicy {
  readonly conn: Connection;
}

/** Sends a planned message. */
export async function sendPlanned(
  ctx: SendContext,
  plan: SendPlan,
  opts: SendOptions,
): Promise<SendMessageResponse> {
  const state: RetryState = { attempts: 0, mayHaveReached: false };
  let raw: unknown;
  try {
    raw = await ctx.conn.unary('SendMessage', { ...plan.request }, plan.safety, opts, {
      extensions: plan.extensions,
      state,
      pin: plan.pin,
      onAnswerHeaders: admissionListener(opts.onAdmission, ctx.logger),
    });
  } catch (err) {
    throw await concludeFailure(ctx, plan, err, state);
  }
  let response: SendMessageResponse;
  try {
    response = readSendResponse(raw);
  } catch (err) {
    // The peer answered: it may have run the send, whatever this client makes of the answer (ADR 0068).
    throw unreadableAnswer(ctx, plan, err);
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
  const plan = planSend(ctx, input, opts, ctx.conn.transport.tenant);
  await recordIntent(ctx, plan, false);
  return sendPlanned(ctx, plan, opts);
}
