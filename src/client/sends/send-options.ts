/**
 * The options of `send` and `sendStream`, and the message shorthand they accept.
 */
import { randomUUID } from 'node:crypto';
import type { JsonObject, Message } from '../../protocol/model.js';
import type { SendMessageConfiguration } from '../../protocol/requests.js';
import type { Role } from '../../protocol/task-state.js';
import type { AdmissionOutcome } from '../../protocol/constants.js';
import type { CallOptions } from '../connection/call-options.js';

/** Options of `send` and `sendStream`. */
export interface SendOptions extends CallOptions {
  /**
   * The idempotency key: `'auto'` (the default) mints one when the peer honours keys and the client's `keys` is
   * not `off`; any other string is used as the key; `false` sends unkeyed. A key already in the message is kept.
   * A keyed send without a `messageId` gets one derived from the key (`messageIdForKey`), so sending the same
   * text with the same key again replays the first send's task.
   */
  readonly key?: string | false;
  readonly configuration?: SendMessageConfiguration;
  readonly metadata?: JsonObject;
  /**
   * Called when the agent says how it admitted the send: `replayed` (the key's task already existed, so this is
   * that task and the agent did not run again), `created` or `continued`. Only a2a-once servers say so (their
   * `A2A-Once-Admission` header); for other agents it is never called. Called once per answered attempt.
   */
  readonly onAdmission?: (admission: AdmissionOutcome) => void;
}

/** A message to send: text, or a message whose `messageId` and `role` may be left for the client to fill. */
export type MessageInput =
  string | (Omit<Message, 'messageId' | 'role'> & { messageId?: string; role?: Role });

/**
 * The message for `input`: a fresh messageId and `ROLE_USER` unless given. (`send` then replaces a fresh
 * messageId of a keyed send with the one its key gives.)
 */
export function toMessage(input: MessageInput): Message {
  if (typeof input === 'string')
    return { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: input }] };
  return { ...input, messageId: input.messageId ?? randomUUID(), role: input.role ?? 'ROLE_USER' };
}
