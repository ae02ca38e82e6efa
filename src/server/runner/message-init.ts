/**
 * Turns the shorthand an agent passes (`'text'`, parts, a partial message) into a full agent Message.
 */
import { newUuid } from '../../protocol/uuid.js';
import type { Message } from '../../protocol/model.js';
import type { StatusMessageInit } from '../agent-executor.js';

/** A complete agent message for a task. */
export function agentMessage(
  init: StatusMessageInit,
  taskId: string | undefined,
  contextId: string,
): Message {
  const base: Partial<Message> =
    typeof init === 'string' ? { parts: [{ text: init }] } : Array.isArray(init) ? { parts: init } : init;
  return {
    ...base,
    messageId: base.messageId ?? newUuid(),
    role: 'ROLE_AGENT',
    parts: base.parts ?? [],
    contextId,
    ...(taskId !== undefined ? { taskId } : {}),
  };
}

/** The text parts of a message, joined with newlines. */
export function textOf(message: Message): string {
  let out = '';
  for (const p of message.parts) if ('text' in p) out = out === '' ? p.text : `${out}\n${p.text}`;
  return out;
}
