/**
 * Streams that survive a cut (docs/semantics.md §7, A2A v1.0). A stream that ends before its proper end is an
 * ambiguous failure; the client re-attaches without resending anything unsafe:
 * - a keyed streaming send to a peer that honours keys is resent with the same key (the peer replays: a task
 *   snapshot, then the live events);
 * - otherwise, once the task's id is known, it subscribes to the task (a read, always safe); a task that
 *   finished meanwhile refuses the subscription, and GetTask fetches its final state;
 * - otherwise (an unkeyed send cut before its first event) the outcome is unknown.
 * `StreamView` turns the snapshot into the updates the caller missed, so each update is seen once.
 * A peer that numbers its events (a2a-once: SSE `id:`, gRPC's base sequence, ADR 0124) makes this exact: the
 * client remembers the last event it handed on and re-attaches by SubscribeToTask with `Last-Event-ID`, which
 * answers exactly the events after it, so each event is shown once, as the peer sent it (ADR 0125).
 */
import { A2AError } from '../../protocol/errors.js';
import type { StreamResponse } from '../../protocol/model.js';
import { retryDelay } from '../retry/backoff.js';
import type { CallScope } from '../transport/call-scope.js';
import type { OpenedStream } from '../connection/connection.js';
import type { CallOptions } from '../connection/call-options.js';
import { readStreamResponse, readTask } from '../transport/parse-results.js';
import { notifyRetry } from '../retry/retry-loop.js';
import type { RetryState } from '../retry/retry-loop.js';
import { failureKindOf } from '../transport/failure-kind.js';
import type { CallSafety } from '../retry/retry-policy.js';
import { OutcomeUnknownError } from '../sends/outcome-unknown-error.js';
import { concludeFailure, settleIntent, unreadableAnswer } from '../sends/send-plan.js';
import type { SendContext } from '../sends/send-flow.js';
import type { SendPlan } from '../sends/send-plan.js';
import type { SendOptions } from '../sends/send-options.js';
import { admissionListener } from '../sends/admission.js';
import { StreamView } from './stream-view.js';
import type { StreamOperation } from '../transport/transport.js';
import { TransportError } from '../transport/transport-error.js';
import { eventSeqOf, withEventSeq } from '../transport/transport.js';

type Source = 'send' | 'subscribe';

/**
 * What to stream: a planned send, or a subscription to a known task, from its snapshot or, with `afterEventId`,
 * from after that event of it (ADR 0126).
 */
export type StreamStart =
  { readonly send: SendPlan } | { readonly subscribe: string; readonly afterEventId?: number | undefined };

function cut(): TransportError {
  return new TransportError('ambiguous', 'STREAM_CUT', 'the stream ended before the task settled');
}

/** Streams with re-attachment; yields each update once. */
export async function* runStream(
  ctx: SendContext,
  start: StreamStart,
  opts: CallOptions & Pick<SendOptions, 'onAdmission'>,
): AsyncGenerator<StreamResponse> {
  const conn = ctx.conn;
  const onAnswerHeaders = admissionListener(opts.onAdmission, ctx.logger);
  const call: CallScope = conn.scope(opts);
  const view = new StreamView();
  const plan = 'send' in start ? start.send : undefined;
  let source: Source = plan ? 'send' : 'subscribe';
  const state: RetryState = { attempts: 0, mayHaveReached: false };
  let settled = plan === undefined;
  let reattachments = 0;
  // The sequence of the last event handed on, when the peer numbers its events (ADR 0125).
  let lastSeq: number | undefined = 'subscribe' in start ? start.afterEventId : undefined;

  const settleOnce = async (): Promise<void> => {
    if (settled || plan === undefined) return;
    if (view.taskId === undefined && !view.ended) return;
    settled = true;
    await settleIntent(
      ctx,
      plan,
      view.taskId ? { status: 'answered', taskId: view.taskId } : { status: 'answered' },
    );
  };

  /**
   * The error a send's stream ends with once it cannot re-attach: before the task was named, the send's own
   * conclusion (its intent settled or left pending); after, the send ran, so an ambiguous end is
   * `OutcomeUnknownError` naming the task (its outcome is what is unknown), never a bare transport error.
   */
  const endOfSend = async (failure: unknown): Promise<unknown> => {
    if (plan === undefined) return failure;
    if (!settled) return concludeFailure(ctx, plan, failure, state, view.taskId);
    // The peer's own definite answer (an error event) stands, and so does a conclusion already drawn.
    if (failure instanceof OutcomeUnknownError) return failure;
    if (failure instanceof A2AError && failureKindOf(failure) === 'definite') return failure;
    // Anything else (a cut, a timeout, an event too large to read, the caller's abort) says nothing about how the
    // task that ran ends.
    return new OutcomeUnknownError({
      messageId: plan.message.messageId,
      key: plan.key,
      taskId: view.taskId,
      peerHonoursKeys: ctx.peerHonoursKeys,
      cause: failure,
    });
  };

  for (;;) {
    const op: StreamOperation = source === 'send' ? 'SendStreamingMessage' : 'SubscribeToTask';
    const safety: CallSafety = source === 'send' ? plan!.safety : 'read';
    const params =
      source === 'send'
        ? { ...plan!.request }
        : { id: view.taskId ?? (start as { subscribe: string }).subscribe };
    // A subscription after an event the caller has asks for exactly the events after it.
    const resume = source === 'subscribe' ? lastSeq : undefined;
    let failure: unknown;
    let opened: OpenedStream;
    try {
      opened = await conn.open(op, params, safety, opts, call, {
        lastEventSeq: resume,
        extensions: source === 'send' ? plan!.extensions : [],
        state,
        // A keyed stream's re-attachments, by resend or by subscription, stay on its tenant (ADR 0034).
        pin: plan?.pin,
        onAnswerHeaders: source === 'send' ? onAnswerHeaders : undefined,
      });
    } catch (err) {
      if (
        resume !== undefined &&
        reattachments > 0 &&
        err instanceof A2AError &&
        err.reason === 'LAST_EVENT_ID_INVALID'
      ) {
        // The peer cannot resume from our own id (a log it no longer has as we saw it): re-attach without it, from
        // its snapshot, as with a peer that numbers nothing. A caller's `afterEventId` refused is its answer.
        lastSeq = undefined;
        continue;
      }
      // The opening was already retried as far as its safety allows.
      if (source === 'subscribe' && isTerminalRefusal(err) && view.taskId !== undefined) {
        // The task finished while we were away, so it refuses subscriptions (A2A v1.0): fetch its final state.
        const raw = await conn.unary('GetTask', { id: view.taskId }, 'read', opts, { pin: plan?.pin });
        for (const o of view.resync({ task: readTask(raw) })) yield o;
        return;
      }
      throw await endOfSend(err);
    }
    try {
      let first = true;
      for await (const raw of opened.stream) {
        const seq = eventSeqOf(raw);
        // An update the caller already has (a peer that answered from before our id): shown once already.
        if (seq !== undefined && lastSeq !== undefined && seq <= lastSeq && !isSnapshot(raw)) continue;
        let ev: StreamResponse;
        try {
          ev = readStreamResponse(raw);
        } catch (err) {
          // A send's stream answered with what this client cannot read: it may have run (ADR 0068).
          throw plan === undefined ? err : unreadableAnswer(ctx, plan, err, view.taskId);
        }
        // A resumed stream's first event is the one after ours, as the peer sent it: nothing to turn into a delta.
        const exact = resume !== undefined && seq !== undefined && !('task' in ev);
        const out = first && reattachments > 0 && !exact ? view.resync(ev) : view.accept(ev);
        first = false;
        if (seq !== undefined) lastSeq = seq;
        await settleOnce();
        // What the caller is shown carries the event's number (`eventSequenceOf`), so it can resume later itself.
        for (const o of out) yield withEventSeq(o, seq);
        if (view.ended) return;
      }
      if (view.ended) return;
      failure = cut();
    } catch (err) {
      failure = err;
    } finally {
      opened.scope.dispose();
    }

    // The stream broke after it opened: the request reached the peer.
    state.mayHaveReached = true;
    const next =
      failureKindOf(failure) === 'ambiguous' && !call.callerAborted
        ? reattachVia(plan, view, lastSeq)
        : undefined;
    const delay = retryDelay(reattachments, undefined, conn.retry.backoff, conn.retry.random);
    if (next !== undefined) conn.retry.budget.onFailure();
    if (
      next === undefined ||
      reattachments + 1 >= conn.retry.maxAttempts ||
      !conn.retry.budget.canRetry() ||
      delay >= call.remainingMs()
    ) {
      throw await endOfSend(failure);
    }
    reattachments++;
    source = next;
    notifyRetry(conn.retry, {
      attempt: reattachments,
      delayMs: delay,
      retryAfterMs: undefined,
      error: failure,
    });
    await call.sleep(delay);
  }
}

function isTerminalRefusal(err: unknown): boolean {
  return err instanceof A2AError && err.reason === 'UNSUPPORTED_OPERATION';
}

/** Whether a raw event is a task snapshot (which `StreamView.resync` reads, whatever its number). */
function isSnapshot(raw: unknown): boolean {
  return typeof raw === 'object' && raw !== null && 'task' in raw;
}

/**
 * How to re-attach after a cut, or undefined when no safe way exists. Once the caller has a numbered event of a
 * named task, a subscription from it is exact and a read (ADR 0125); before that, a keyed send is resent.
 */
function reattachVia(
  plan: SendPlan | undefined,
  view: StreamView,
  lastSeq: number | undefined,
): Source | undefined {
  if (view.taskId !== undefined && lastSeq !== undefined) return 'subscribe';
  if (plan !== undefined && plan.safety === 'keyed-send') return 'send';
  if (view.taskId !== undefined) return 'subscribe';
  return undefined;
}
