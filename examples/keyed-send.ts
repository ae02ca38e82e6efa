/**
 * A keyed send with the client (docs/semantics.md §1, §7): the same key and the same text sent twice is one task.
 * The second send stands for the retry an agent makes when the answer to its first send was lost: it gets the
 * first send's task back instead of starting a second payment. Tested in test/examples/keyed-send.test.ts.
 */
import { A2AClient } from 'a2a-once/client';
import type { SendMessageResponse } from 'a2a-once';

/** Sends the same payment request twice under one key; returns both answers' task ids. */
export async function payOnce(agentUrl: string, orderId: string): Promise<{ first: string; retry: string }> {
  const client = await A2AClient.fromCardUrl(agentUrl);
  // A key that names the intent: the same order is the same payment, however often it is sent.
  const key = `order-${orderId}-payment`;
  const first = await client.send(`charge order ${orderId}`, { key });
  const retry = await client.send(`charge order ${orderId}`, { key });
  return { first: taskIdOf(first), retry: taskIdOf(retry) };
}

function taskIdOf(answer: SendMessageResponse): string {
  if (!('task' in answer)) throw new Error('the agent answered with a message, not a task');
  return answer.task.id;
}
