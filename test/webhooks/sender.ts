/**
 * A tiny in-test webhook sender: signs deliveries the way the server's push delivery does (the shared wire form
 * of src/webhook-wire), so the receiver is tested without the server's sending side.
 */
import { randomBytes } from 'node:crypto';
import type { StreamResponse } from '../../src/protocol/model.js';
import {
  NOTIFICATION_TOKEN_HEADER,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SEQUENCE_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  parseWebhookSecret,
  signWebhook,
  webhookId,
} from '../../src/webhook-wire/index.js';

/** A fresh `whsec_` secret. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** A status-update event for `taskId` whose message text says `seq`, so tests can see which event was applied. */
export function statusEvent(taskId: string, seq: number): StreamResponse {
  return {
    statusUpdate: {
      taskId,
      contextId: 'ctx-1',
      status: {
        state: 'TASK_STATE_WORKING',
        message: { messageId: `m-${seq}`, role: 'ROLE_AGENT', parts: [{ text: `event ${seq}` }] },
      },
    },
  };
}

/** What a delivery carries. */
export interface Delivery {
  headers: Record<string, string>;
  body: string;
}

/** Options of one delivery. */
export interface DeliveryOptions {
  secret?: string;
  token?: string;
  /** Seconds since the epoch; default now. */
  timestampS?: number;
  event?: StreamResponse;
  body?: string;
}

/** The signed delivery of event `seq` of `taskId`. */
export function delivery(taskId: string, seq: number, options: DeliveryOptions = {}): Delivery {
  const id = webhookId(taskId, seq);
  const ts = options.timestampS ?? Math.floor(Date.now() / 1000);
  const body = options.body ?? JSON.stringify(options.event ?? statusEvent(taskId, seq));
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    [WEBHOOK_ID_HEADER]: id,
    [WEBHOOK_TIMESTAMP_HEADER]: String(ts),
    [WEBHOOK_SEQUENCE_HEADER]: String(seq),
  };
  if (options.secret !== undefined)
    headers[WEBHOOK_SIGNATURE_HEADER] = signWebhook(parseWebhookSecret(options.secret), id, ts, body);
  if (options.token !== undefined) headers[NOTIFICATION_TOKEN_HEADER] = options.token;
  return { headers, body };
}

/** The same delivery as a Fetch request to `url`. */
export function deliveryRequest(url: string, d: Delivery): Request {
  return new Request(url, { method: 'POST', headers: d.headers, body: d.body });
}

/** The text of the event's status message (`event N`), or `snapshot` for a task. */
export function labelOf(event: StreamResponse): string {
  if ('task' in event) return 'snapshot';
  if ('statusUpdate' in event) {
    const part = event.statusUpdate.status.message?.parts[0];
    return part !== undefined && 'text' in part ? part.text : '?';
  }
  return '?';
}
