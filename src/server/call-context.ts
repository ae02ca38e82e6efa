/**
 * What the transport layer knows about a call and hands to the RequestHandler: tenant, principal, negotiated
 * version and extensions. Transport-agnostic, so JSON-RPC, REST (and later gRPC) build the same object.
 */
import type { AdmissionOutcome } from '../protocol/constants.js';

/** One call's context. */
export interface CallContext {
  /** The A2A tenant ('' for the default). REST takes it from the `/{tenant}` prefix, JSON-RPC from `params.tenant`. */
  readonly tenant: string;
  /** The authenticated principal, when the host authenticates callers; keys and tasks are scoped to it. */
  readonly principal?: string;
  /** Extension URIs the client requested in `A2A-Extensions`. */
  readonly requestedExtensions: readonly string[];
  /** Extension URIs the server activated for this call; echoed in the response's `A2A-Extensions`. */
  readonly activatedExtensions: Set<string>;
  /** Aborts when the client goes away (streams end; blocking waits stop, the task goes on). */
  readonly signal?: AbortSignal;
  /**
   * The call carries a delegating parent's renewal header: a GetTask that finds the task renews the lease its
   * parent gave it (ADR 0039, ADR 0044).
   */
  readonly renewsDelegationLease?: boolean;
  /**
   * The call resumes a stream after this event sequence (the `Last-Event-ID` header, or `last-event-id` gRPC
   * metadata, of a SubscribeToTask): the stream replays exactly the task's events after it, then goes on live
   * (docs/semantics.md §7, ADR 0125).
   */
  readonly resumeAfter?: number;
  /**
   * What the handler found out that the transport answers with: how a send was admitted, set once it is, for the
   * `A2A-Once-Admission` header. Absent for calls made in code.
   */
  readonly notes?: CallNotes;
}

/** Filled in by the handler during a call, read by the transport when it answers. */
export interface CallNotes {
  admission?: AdmissionOutcome;
  /**
   * A stream's base sequence: its snapshot is the task as of it, its k-th log event is event `streamSeq + k`
   * (ADR 0124). The SSE writer numbers each event's `id:` from it; gRPC sends it in the response metadata.
   */
  streamSeq?: number;
}

/** A context for calls made in code (tests, embedding) rather than over HTTP. */
export function localCallContext(init: Partial<Omit<CallContext, 'activatedExtensions'>> = {}): CallContext {
  return {
    tenant: init.tenant ?? '',
    ...(init.principal !== undefined ? { principal: init.principal } : {}),
    requestedExtensions: init.requestedExtensions ?? [],
    activatedExtensions: new Set(),
    ...(init.signal ? { signal: init.signal } : {}),
    ...(init.renewsDelegationLease === true ? { renewsDelegationLease: true } : {}),
    ...(init.resumeAfter !== undefined ? { resumeAfter: init.resumeAfter } : {}),
    ...(init.notes !== undefined ? { notes: init.notes } : {}),
  };
}
