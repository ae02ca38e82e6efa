/**
 * An agent whose side effect runs once (docs/semantics.md §4 "Durable steps", ADR 0038). The charge is a durable
 * step: its result is recorded in the store, so a resumed turn reads it instead of charging again, and the step's
 * side-effect key (`<taskId>:charge`, the same on every replica and every resume) goes to the payment service as
 * its idempotency key, so even a charge whose record was lost in a crash is not made twice downstream.
 * Tested in test/examples/durable-step.test.ts.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createA2AServer, type A2AServer } from 'a2a-once/server';
import { serveNode } from 'a2a-once/server/node';

/** What the payment service answers: the charge, and whether this request made it or replayed it. */
interface Receipt {
  readonly chargeId: string;
  readonly amount: number;
}

/** The billing agent: charges the amount in the message, once per task, and reports the receipt. */
export function billingAgent(paymentsUrl: string): A2AServer {
  return createA2AServer({
    card: { name: 'billing', description: 'Charges an order once' },
    agent: {
      // A lost worker's turn may be run again by recovery: the step makes that safe.
      resumable: true,
      async execute(ctx) {
        const amount = Number(/\d+/.exec(ctx.userText)?.[0] ?? NaN);
        if (!Number.isFinite(amount)) return ctx.fail('say how much to charge, e.g. "charge 42"');
        const receipt = await ctx.step('charge', async (sideEffectKey) => {
          const res = await fetch(`${paymentsUrl}/charges`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': sideEffectKey },
            body: JSON.stringify({ amount }),
          });
          if (!res.ok) throw new Error(`payment service answered ${res.status}`);
          return (await res.json()) as Receipt;
        });
        await ctx.artifact({
          name: 'receipt',
          parts: [{ text: `charged ${receipt.amount} as ${receipt.chargeId}` }],
        });
        await ctx.complete();
      },
    },
  });
}

/** A payment service that deduplicates on `Idempotency-Key`, as Stripe and most payment APIs do. */
export async function startPayments(): Promise<{
  url: string;
  charges: Map<string, Receipt>;
  close(): Promise<void>;
}> {
  const charges = new Map<string, Receipt>();
  const server = createServer((req, res) => {
    void readJson(req).then((body) => {
      const key = req.headers['idempotency-key'];
      if (typeof key !== 'string') return res.writeHead(400).end('Idempotency-Key required');
      let receipt = charges.get(key);
      if (receipt === undefined) {
        receipt = { chargeId: `ch_${charges.size + 1}`, amount: Number((body as { amount: number }).amount) };
        charges.set(key, receipt);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(receipt));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    charges,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return JSON.parse(text || '{}');
}

/** Starts the billing agent on a free port. */
export async function startBilling(paymentsUrl: string): Promise<{ url: string; close(): Promise<void> }> {
  const agent = billingAgent(paymentsUrl);
  const http = await serveNode(agent.fetch);
  return {
    url: http.url,
    close: async () => {
      await http.close();
      await agent.close();
    },
  };
}
