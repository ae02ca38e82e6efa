/**
 * What one delivery sends (docs/semantics.md §5): the event's `StreamResponse` JSON, the config's credentials,
 * and the Standard Webhooks headers from the shared wire form (`a2a-once/webhook-wire`), so the receiver's
 * helper checks exactly the bytes signed here.
 */
import type { StreamResponse } from '../../protocol/model.js';
import type { TaskPushNotificationConfig } from '../../protocol/requests.js';
import {
  NOTIFICATION_TOKEN_HEADER,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SEQUENCE_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_TIMESTAMP_HEADER,
  signWebhook,
  webhookId,
} from '../../webhook-wire/webhook-wire.js';

/** Headers and body of one attempt. */
export interface PushRequest {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** The `Authorization` value a config's `authentication` asks for (A2A AuthenticationInfo), if any. */
export function authorizationOf(config: TaskPushNotificationConfig): string | undefined {
  const a = config.authentication;
  if (!a) return undefined;
  return a.credentials ? `${a.scheme} ${a.credentials}` : a.scheme;
}

/** Builds the attempt for event `seq` of `taskId`, signed (when there is a key) at `nowMs`. */
export function pushRequest(
  taskId: string,
  seq: number,
  event: StreamResponse,
  config: TaskPushNotificationConfig,
  signingKey: Uint8Array | undefined,
  nowMs: number,
): PushRequest {
  const body = JSON.stringify(event);
  const id = webhookId(taskId, seq);
  const timestamp = Math.floor(nowMs / 1000);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'a2a-once',
    [WEBHOOK_ID_HEADER]: id,
    [WEBHOOK_TIMESTAMP_HEADER]: String(timestamp),
    [WEBHOOK_SEQUENCE_HEADER]: String(seq),
  };
  if (signingKey) headers[WEBHOOK_SIGNATURE_HEADER] = signWebhook(signingKey, id, timestamp, body);
  const authorization = authorizationOf(config);
  if (authorization !== undefined) headers.authorization = authorization;
  if (config.token) headers[NOTIFICATION_TOKEN_HEADER] = config.token;
  return { headers, body };
}
