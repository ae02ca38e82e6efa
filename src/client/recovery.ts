/**
 * Resending what a crash left pending (SEMANTICS §7): every intent of this agent still unsettled is resent with
 * its recorded key and identical message, so a peer that honours keys replays the task the first attempt
 * created, or runs it once if the first attempt never arrived. Against a peer that does not honour keys a
 * resend could run the message twice, so those intents are reported, never resent, unless the caller forces it.
 */
import { IDEMPOTENCY_EXTENSION_URI, keyHash } from '../idempotency/index.js';
import type { SendMessageResponse } from '../protocol/model.js';
import type { CallOptions } from './options.js';
import type { SendIntent } from './intent-store.js';
import { sendPlanned } from './send-flow.js';
import type { SendContext, SendPlan } from './send-plan.js';

/** What happened to one pending intent. */
export interface RecoveryResult {
  readonly messageId: string;
  /** Log-safe hash of the key. */
  readonly keyHash: string;
  /** `resent`: a definite answer; `failed`: the resend failed (see `error`; still pending unless definite); `skipped`: not resent. */
  readonly status: 'resent' | 'failed' | 'skipped';
  readonly response?: SendMessageResponse;
  readonly error?: unknown;
}

/** Options of `recoverPending`. */
export interface RecoverOptions extends CallOptions {
  /** Resend even to a peer not known to honour keys (it may run the message twice). Default false. */
  readonly force?: boolean;
}

/** Resends the pending intents of `ctx.target`, oldest first. */
export async function recoverPending(ctx: SendContext, opts: RecoverOptions = {}): Promise<RecoveryResult[]> {
  if (ctx.intents === undefined) return [];
  const results: RecoveryResult[] = [];
  for (const intent of await ctx.intents.pending(ctx.target)) {
    const base = { messageId: intent.messageId, keyHash: keyHash(intent.key) };
    if (!ctx.peerHonoursKeys && opts.force !== true) {
      results.push({ ...base, status: 'skipped' });
      continue;
    }
    try {
      const response = await sendPlanned(ctx, planOf(ctx, intent), opts);
      results.push({ ...base, status: 'resent', response });
    } catch (error) {
      results.push({ ...base, status: 'failed', error });
    }
  }
  return results;
}

function planOf(ctx: SendContext, intent: SendIntent): SendPlan {
  return {
    message: intent.request.message,
    key: intent.key,
    request: intent.request,
    safety: ctx.peerHonoursKeys ? 'keyed-send' : 'unsafe',
    extensions: [IDEMPOTENCY_EXTENSION_URI],
  };
}
