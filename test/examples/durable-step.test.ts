import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBilling, startPayments } from '../../examples/durable-step.js';
import { A2AClient } from '../../src/client/index.js';

describe('example: an agent with a durable step', () => {
  let payments: Awaited<ReturnType<typeof startPayments>>;
  let billing: Awaited<ReturnType<typeof startBilling>>;
  beforeAll(async () => {
    payments = await startPayments();
    billing = await startBilling(payments.url);
  });
  afterAll(async () => {
    await billing.close();
    await payments.close();
  });

  it('charges once, under the step’s side-effect key, and reports the receipt', async () => {
    const client = await A2AClient.fromCardUrl(billing.url);
    const answer = await client.send('charge 42');
    if (!('task' in answer)) throw new Error('expected a task');
    expect(answer.task.status.state).toBe('TASK_STATE_COMPLETED');
    expect([...payments.charges.keys()]).toEqual([`${answer.task.id}:charge`]);
    expect(answer.task.artifacts?.[0]?.parts).toEqual([{ text: 'charged 42 as ch_1' }]);
  });

  it('the payment service deduplicates a repeated side-effect key', async () => {
    const key = [...payments.charges.keys()][0]!;
    const again = await fetch(`${payments.url}/charges`, {
      method: 'POST',
      headers: { 'idempotency-key': key },
      body: JSON.stringify({ amount: 42 }),
    });
    expect(await again.json()).toEqual({ chargeId: 'ch_1', amount: 42 });
    expect(payments.charges.size).toBe(1);
  });

  it('a message without an amount fails the task with a clear status', async () => {
    const client = await A2AClient.fromCardUrl(billing.url);
    const answer = await client.send('charge me');
    if (!('task' in answer)) throw new Error('expected a task');
    expect(answer.task.status.state).toBe('TASK_STATE_FAILED');
    expect(answer.task.status.message?.parts).toEqual([{ text: 'say how much to charge, e.g. "charge 42"' }]);
  });
});
