/**
 * Resending what a crash left pending (docs/semantics.md §7): every intent of this agent still unsettled is resent with
 * its recorded key and identical message, to the tenant it was bound to (ADR 0034), so a peer that honours keys
 * replays the task the first attempt created, or runs it once if the first attempt never arrived. Against a
 * peer that does not honour keys a resend could run the message twice, so those intents are reported, never
 * resent, unless the caller forces it. An intent stays pending until a definite answer: a resend that fails,
 * even one that certainly reached nothing, proves nothing about the attempts of the run that recorded it.
 */
import { IDEMPOTENCY_EXTENSION_URI, keyHash } from '../../idempotency/index.js';
import { ClientError } from '../connection/client-error.js';
import type { SendMessageResponse } from '../../protocol/model.js';
import type { CallOptions } from '../connection/call-options.js';
import type { SendIntent } from '../intents/intent-store.js';
import { sendPlanned } from './send-flow.js';
import type { SendContext } from './send-flow.js';
import type { SendPlan } from './send-plan.js';

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
    const plan = planOf(ctx, intent);
    if (!ctx.conn.serves(plan.pin?.tenant)) {
      // Another tenant would run it again: leave it pending for a client that can reach its own tenant.
      const error = new ClientError(
        'NO_USABLE_INTERFACE',
        `no interface of the tenant this send was bound to`,
      );
      results.push({ ...base, status: 'failed', error });
      continue;
    }
    try {
      const response = await sendPlanned(ctx, plan, opts);
      results.push({ ...base, status: 'resent', response });
    } catch (error) {
      results.push({ ...base, status: 'failed', error });
    }
  }
  return results;
}

/** The plan of a recorded intent: its key, its request (the tenant travels by the interface), its tenant. */
function planOf(ctx: SendContext, intent: SendIntent): SendPlan {
  const { tenant, ...request } = intent.request;
  return {
    message: request.message,
    key: intent.key,
    request,
    safety: ctx.peerHonoursKeys ? 'keyed-send' : 'unsafe',
    extensions: [IDEMPOTENCY_EXTENSION_URI],
    pin: { tenant: tenant === '' ? undefined : tenant },
    resumed: true,
  };
}
