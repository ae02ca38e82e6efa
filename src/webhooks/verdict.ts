/**
 * What the receiver answers a delivery: a status and a small JSON body, framework-neutral (docs/semantics.md §5,
 * "Receiver"). A sender reads only the status: 2xx is done (applied or already applied), 5xx is retried later,
 * and 4xx is a request that will never be accepted as sent (bad signature, malformed). The body's `reason` is for
 * the humans reading the sender's logs.
 */

/** How a delivery was accepted. */
export type WebhookOutcome =
  /** The event was the next one for its task and was applied. */
  | 'applied'
  /** The event was applied before (a sender retry after a lost 2xx, or a late copy): acknowledged, not applied. */
  | 'duplicate'
  /** Earlier events were missing: the task's snapshot was applied, then this event. */
  | 'repaired';

/** Why a delivery was refused (400/401/405/413) or could not be applied now (5xx, retried by the sender). */
export type WebhookRefusalReason =
  | 'METHOD_NOT_ALLOWED'
  | 'BODY_TOO_LARGE'
  | 'RAW_BODY_REQUIRED'
  | 'MISSING_HEADER'
  | 'INVALID_WEBHOOK_ID'
  | 'INVALID_TIMESTAMP'
  | 'SEQUENCE_MISMATCH'
  | 'INVALID_JSON'
  | 'INVALID_EVENT'
  | 'TASK_MISMATCH'
  | 'SIGNATURE_MISSING'
  | 'SIGNATURE_MISMATCH'
  | 'TIMESTAMP_OUT_OF_TOLERANCE'
  | 'TOKEN_MISMATCH'
  | 'APPLY_FAILED'
  | 'GAP_REPAIR_FAILED'
  | 'STORE_FAILED';

/** The HTTP status of each refusal. */
export const REFUSAL_STATUS: Readonly<Record<WebhookRefusalReason, number>> = {
  METHOD_NOT_ALLOWED: 405,
  BODY_TOO_LARGE: 413,
  // The framework parsed the body before us: a server set-up error, not the sender's fault.
  RAW_BODY_REQUIRED: 500,
  MISSING_HEADER: 400,
  INVALID_WEBHOOK_ID: 400,
  INVALID_TIMESTAMP: 400,
  SEQUENCE_MISMATCH: 400,
  INVALID_JSON: 400,
  INVALID_EVENT: 400,
  TASK_MISMATCH: 400,
  SIGNATURE_MISSING: 401,
  SIGNATURE_MISMATCH: 401,
  TIMESTAMP_OUT_OF_TOLERANCE: 401,
  TOKEN_MISMATCH: 401,
  APPLY_FAILED: 500,
  GAP_REPAIR_FAILED: 502,
  STORE_FAILED: 503,
};

/** The JSON body of an accepted delivery. */
export interface AcceptedBody {
  readonly outcome: WebhookOutcome;
  readonly taskId: string;
  readonly seq: number;
}

/** The JSON body of a refusal. */
export interface RefusalBody {
  readonly error: { readonly reason: WebhookRefusalReason; readonly message: string };
}

/** An accepted delivery's answer. */
export interface AcceptedVerdict {
  readonly status: 200;
  readonly body: AcceptedBody;
}

/** A refused delivery's answer. */
export interface RefusalVerdict {
  readonly status: number;
  readonly body: RefusalBody;
}

/** The receiver's answer: what to write back, in any framework. */
export type WebhookVerdict = AcceptedVerdict | RefusalVerdict;

/** A refusal verdict. */
export function refusal(reason: WebhookRefusalReason, message: string): WebhookVerdict {
  return { status: REFUSAL_STATUS[reason], body: { error: { reason, message } } };
}

/** An accepted verdict. */
export function accepted(outcome: WebhookOutcome, taskId: string, seq: number): WebhookVerdict {
  return { status: 200, body: { outcome, taskId, seq } };
}

/** Whether a verdict is a refusal. */
export function isRefusal(verdict: WebhookVerdict): verdict is RefusalVerdict {
  return 'error' in verdict.body;
}

/** The verdict as a Fetch `Response` (JSON body). */
export function verdictResponse(verdict: WebhookVerdict): Response {
  return new Response(JSON.stringify(verdict.body), {
    status: verdict.status,
    headers: { 'content-type': 'application/json' },
  });
}
