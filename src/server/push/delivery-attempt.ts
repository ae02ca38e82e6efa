/**
 * One delivery attempt of one event (ADR 0045, ADR 0056). Everything the attempt waits on is inside one deadline
 * of `attemptTimeoutMs`: the SSRF guard's DNS lookup, the claim's check, and the POST itself. The claim is checked
 * and extended right before the POST, so a dispatcher whose claim lapsed while it waited (a slow resolver, a
 * stalled event loop) and was claimed again, by another replica or by this one, never sends: the webhook cannot
 * see event n once event n + 1 was acknowledged.
 */
import type { StoredEvent } from '../../store/records.js';
import type { PushDelivery } from '../../store/push-delivery.js';
import type { Clock } from '../../store/clock.js';
import type { ResolvedPushOptions } from './push-options.js';
import { pushRequest } from './push-request.js';
import { postWebhook, type PostAgents, type PostResult } from './webhook-post.js';
import { WebhookTargetError, checkWebhookUrlForm, resolveWebhookTarget } from './webhook-url-guard.js';

/** What to do after one attempt. */
export type Verdict =
  | { readonly kind: 'ack' }
  | { readonly kind: 'retry'; readonly error: string; readonly afterMs?: number }
  | { readonly kind: 'reject'; readonly error: string; readonly reason: string }
  /** The claim is no longer this dispatcher's: nothing was sent, and nothing is to be recorded. */
  | { readonly kind: 'lost' };

/** What an attempt needs from its dispatcher. */
export interface AttemptContext {
  readonly options: ResolvedPushOptions;
  readonly agents: PostAgents;
  readonly clock: Clock;
  /** Checks and extends the claim for this event (the store's `sending` outcome); false: do not send. */
  readonly confirm: () => Promise<boolean>;
  /** Adds the trace context to the POST's headers, with telemetry (ADR 0092). */
  readonly inject?: (headers: Record<string, string>) => void;
  /** Told what the POST came to, with telemetry. */
  readonly onAnswer?: (result: PostResult) => void;
}

/** What a deadline rejects with (only ever compared by identity, never thrown past this file). */
class PastDeadline extends Error {
  override name = 'PastDeadline';
}
const PAST_DEADLINE = new PastDeadline('past the attempt deadline');

/** `p`, or a rejection with `PAST_DEADLINE` once `ms` have passed (a lookup cannot be cancelled, only left). */
function withinDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(PAST_DEADLINE), Math.max(0, ms));
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** The verdict of an answer (or of no answer). */
export function verdictOf(r: PostResult): Verdict {
  if (r.kind === 'no-answer') return { kind: 'retry', error: r.error };
  const s = r.status;
  if (s >= 200 && s < 300) return { kind: 'ack' };
  const error = `HTTP ${s}`;
  if (s === 408 || s === 429 || s >= 500)
    return { kind: 'retry', error, ...(r.retryAfterMs === undefined ? {} : { afterMs: r.retryAfterMs }) };
  return { kind: 'reject', error, reason: 'rejected' };
}

/** One attempt at event `e`: the target checked again, the claim confirmed, then the POST to the checked address. */
export async function attemptDelivery(
  d: PushDelivery,
  e: StoredEvent,
  ctx: AttemptContext,
): Promise<Verdict> {
  const o = ctx.options;
  // A monotonic deadline: the injectable clock may stand still in tests, and wall time may jump.
  const deadline = performance.now() + o.attemptTimeoutMs;
  let url: URL;
  let target;
  try {
    url = checkWebhookUrlForm(d.config.url, o.allowPrivateTargets);
    target = await withinDeadline(
      resolveWebhookTarget(url, o.allowPrivateTargets, o.resolve),
      o.attemptTimeoutMs,
    );
  } catch (err) {
    if (err === PAST_DEADLINE) return { kind: 'retry', error: 'name resolution timed out' };
    if (err instanceof WebhookTargetError)
      return { kind: 'reject', error: err.message, reason: 'refused-target' };
    // The name does not resolve now: DNS may come back.
    const code = (err as { code?: unknown }).code;
    return { kind: 'retry', error: typeof code === 'string' ? code : 'name resolution failed' };
  }
  if (!(await ctx.confirm())) return { kind: 'lost' };
  // The claim now lasts claimMs (at least twice the attempt timeout) from here: the POST ends well inside it.
  const left = Math.floor(deadline - performance.now());
  if (left <= 0) return { kind: 'retry', error: 'timeout' };
  const req = pushRequest(d.taskId, e.seq, e.event, d.config, o.signingKey, ctx.clock.now());
  ctx.inject?.(req.headers);
  const result = await postWebhook(url, target, req.headers, req.body, left, ctx.agents);
  ctx.onAnswer?.(result);
  return verdictOf(result);
}
