/**
 * The retry observer (`retry.onRetry`): told before every wait with the attempt that failed, the wait and why, so
 * a tool can say what it is doing (`a2a-once send` on a terminal); an observer that throws cannot break a call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { A2AClient, TransportError } from '../../../src/client/index.js';
import type { RetryEvent } from '../../../src/client/index.js';
import { FaultProxy, isCall } from '../harness/fault-proxy.js';
import { startOnceAgent } from '../../helpers/once-agent.js';
import type { OnceAgent } from '../../helpers/once-agent.js';

let agent: OnceAgent;
let proxy: FaultProxy;
beforeAll(async () => {
  agent = await startOnceAgent();
  proxy = await FaultProxy.start(agent.url);
});
afterAll(async () => {
  await proxy.close();
  await agent.close();
});

/** A client of the agent through the proxy (a bare endpoint: the card would name the agent's own origin). */
function client(onRetry: (e: RetryEvent) => void): A2AClient {
  return A2AClient.fromEndpoint(proxy.url, {
    retry: { maxAttempts: 4, backoff: { initialMs: 10, maxMs: 20 }, onRetry },
  });
}

describe('retry.onRetry', () => {
  it('is told about each wait: attempt, limit, delay (at least Retry-After) and the failure', async () => {
    proxy.inject({ kind: 'refuse', status: 429, retryAfter: '0' }, isCall('SendMessage'), 2);
    const events: RetryEvent[] = [];
    const res = await client((e) => events.push(e)).send('after two refusals');
    expect('task' in res).toBe(true);
    expect(events.map((e) => e.attempt)).toEqual([1, 2]);
    for (const e of events) {
      expect(e.maxAttempts).toBe(4);
      expect(e.retryAfterMs).toBe(0);
      expect(e.delayMs).toBeGreaterThanOrEqual(0);
      expect(e.delayMs).toBeLessThanOrEqual(20);
      expect(e.error).toBeInstanceOf(TransportError);
      expect((e.error as TransportError).kind).toBe('refused');
    }
  });

  it('is not told when the first attempt succeeds, nor when a call will not be retried', async () => {
    const events: RetryEvent[] = [];
    await client((e) => events.push(e)).send('first time');
    expect(events).toEqual([]);
    // A lost answer to an unkeyed send is not retried (it may have run): no wait, nothing to tell.
    proxy.inject({ kind: 'drop-response' }, isCall('SendMessage'));
    await client((e) => events.push(e))
      .send('lost', { key: false })
      .catch(() => undefined);
    expect(events).toEqual([]);
  });

  it('cannot break a call by throwing', async () => {
    proxy.inject({ kind: 'refuse', status: 429, retryAfter: '0' }, isCall('SendMessage'));
    let told = 0;
    const res = await client(() => {
      told++;
      throw new Error('observer bug');
    }).send('despite the observer');
    expect(told).toBe(1);
    expect('task' in res).toBe(true);
  });
});
