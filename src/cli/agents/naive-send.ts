/**
 * A send the way a plain A2A SDK user writes it, for the demo's naive run: one `fetch` of a blocking JSON-RPC
 * SendMessage, resent exactly as it was (same body, same messageId, no idempotency key) when the network fails.
 * Nothing here is wrong by the book; it is what the demo measures against, so it must stay this plain: a server
 * that sees the resend cannot tell it from a new send, and runs it again.
 */
import { randomUUID } from 'node:crypto';
import type { Message, Task } from '../../protocol/model.js';

/** How many times a naive send is made before giving up (the first attempt included). */
export const NAIVE_ATTEMPTS = 5;

/** What a naive send ended with: the task its last attempt answered, and how many attempts it took. */
export interface NaiveSendResult {
  readonly task: Task;
  readonly attempts: number;
}

/** A fresh user message: a new messageId per call, as every caller mints one per send. */
export function plainMessage(text: string): Message {
  return { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] };
}

/**
 * POSTs a blocking SendMessage of `message` to the JSON-RPC endpoint `url` and returns the answered task. On a
 * network error (the answer lost) it resends the same body, up to `NAIVE_ATTEMPTS` attempts in all; an A2A error
 * answer, or an answer that carries no task, is thrown at once.
 */
export async function naiveSend(
  url: string,
  message: Message,
  signal?: AbortSignal,
): Promise<NaiveSendResult> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } });
  let lastError: unknown;
  for (let attempt = 1; attempt <= NAIVE_ATTEMPTS; attempt++) {
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
        body,
        ...(signal ? { signal } : {}),
      });
      const answer = (await res.json()) as { result?: { task?: Task }; error?: { message?: string } };
      if (answer.result?.task) return { task: answer.result.task, attempts: attempt };
      throw new NaiveAnswerError(
        `SendMessage answered without a task: ${JSON.stringify(answer.error ?? answer)}`,
      );
    } catch (err) {
      if (err instanceof NaiveAnswerError || signal?.aborted === true) throw err;
      lastError = err; // the connection failed: "just retry", as the naive caller does
    }
  }
  throw new Error(`SendMessage failed ${NAIVE_ATTEMPTS} times: ${String(lastError)}`);
}

/** An answer arrived and was not a task: a definite failure, never resent. */
class NaiveAnswerError extends Error {}
