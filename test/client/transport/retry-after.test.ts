/**
 * `Retry-After` read as it says (ADR 0071, docs/guides/retries-and-the-client.md "Backoff, Retry-After and the
 * budget"): a fraction is that many seconds, a number too large for a safe integer (`1e400`, 400 digits) is a wait
 * too long to take, which ends the call at once like any wait past `maxRetryAfterMs`, and only what is not a
 * number of seconds or an HTTP-date (negative, garbage) is absent.
 *
 * End to end: a real a2a-once server behind a proxy that answers 503 with the header.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { A2AClient, TransportError, parseRetryAfter } from '../../../src/client/index.js';
import { CallScope } from '../../../src/client/transport/call-scope.js';
import { FaultProxy, isCall } from '../harness/fault-proxy.js';
import { startOnceAgent } from '../../helpers/once-agent.js';
import type { OnceAgent } from '../../helpers/once-agent.js';

describe('parseRetryAfter reads what the value says', () => {
  it('a fraction of a second is that fraction, rounded up to whole ms', () => {
    expect(parseRetryAfter('1.5')).toBe(1_500);
    expect(parseRetryAfter('0.25')).toBe(250);
    expect(parseRetryAfter('2.')).toBe(2_000);
    expect(parseRetryAfter('.5')).toBe(500);
    expect(parseRetryAfter('0.0001')).toBe(1);
    expect(parseRetryAfter('1e3')).toBe(1_000_000);
    expect(parseRetryAfter('15E-1')).toBe(1_500);
  });

  it('a number too large for a safe integer is a wait too long to take (Infinity), not absent', () => {
    expect(parseRetryAfter('1e400')).toBe(Infinity);
    expect(parseRetryAfter('9'.repeat(400))).toBe(Infinity);
    expect(parseRetryAfter('9007199254740993')).toBe(Infinity);
    // The largest whole number of ms that is still exact is read as it is.
    expect(parseRetryAfter(String(Math.floor(Number.MAX_SAFE_INTEGER / 1000)))).toBe(
      Math.floor(Number.MAX_SAFE_INTEGER / 1000) * 1000,
    );
  });

  it('negative values and garbage are absent', () => {
    for (const v of ['-1', '-0.5', '+5', '1.5.2', '1e', 'e5', '0x10', 'NaN', 'Infinity', '1 000', '5s', '.'])
      expect(parseRetryAfter(v), v).toBeUndefined();
  });

  it('any non-negative decimal is read to within a millisecond of its value', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1e6, noNaN: true }), (s) => {
        const ms = parseRetryAfter(String(s));
        expect(ms).toBe(Math.ceil(s * 1000) + 0);
      }),
    );
  });
});

describe('a wait longer than a timer can hold is waited, not cut to a millisecond', () => {
  it('CallScope.sleep of 2^31 ms (past setTimeout range) does not resolve early', async () => {
    const abort = new AbortController();
    const scope = new CallScope({ signal: abort.signal });
    let resolved = false;
    const sleeping = scope.sleep(2 ** 31).then(
      () => (resolved = true),
      () => undefined,
    );
    await new Promise((r) => setTimeout(r, 100));
    expect(resolved).toBe(false);
    abort.abort();
    await sleeping;
  });
});

describe('Retry-After end to end (a2a-once server behind a proxy answering 503)', () => {
  let agent: OnceAgent;
  let proxy: FaultProxy;
  let taskId: string;
  beforeAll(async () => {
    agent = await startOnceAgent();
    proxy = await FaultProxy.start(agent.url);
    const direct = await A2AClient.fromCardUrl(agent.url);
    const sent = await direct.send('hello');
    if (!('task' in sent)) throw new Error('expected a task');
    taskId = sent.task.id;
  });
  afterAll(async () => {
    await proxy?.close();
    await agent?.close();
  });
  beforeEach(() => proxy.reset());

  const client = () =>
    A2AClient.fromEndpoint(proxy.via(`${agent.url}/`), {
      retry: { maxAttempts: 4, backoff: { initialMs: 10, maxMs: 20 } },
    });

  it('"1.5" waits 1.5 s before the retry (not an immediate retry)', async () => {
    proxy.inject({ kind: 'refuse', status: 503, retryAfter: '1.5' }, isCall('GetTask'), 1);
    const started = Date.now();
    const task = await client().getTask(taskId);
    const elapsed = Date.now() - started;
    expect(task.id).toBe(taskId);
    expect(proxy.count(isCall('GetTask'))).toBe(2);
    expect(elapsed).toBeGreaterThanOrEqual(1_400);
  }, 30_000);

  it('"1e400" ends the call at once with the refusal, instead of retrying at once', async () => {
    proxy.inject({ kind: 'refuse', status: 503, retryAfter: '1e400' }, isCall('GetTask'), 4);
    const err = await client()
      .getTask(taskId)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TransportError);
    expect(err).toMatchObject({ code: 'UNAVAILABLE', httpStatus: 503, retryAfterMs: Infinity });
    expect(proxy.count(isCall('GetTask'))).toBe(1);
  });

  it('a 400-digit value ends a keyed send the same way, one request and no resend', async () => {
    proxy.inject({ kind: 'refuse', status: 503, retryAfter: '9'.repeat(400) }, isCall('SendMessage'), 4);
    const keyed = A2AClient.fromEndpoint(proxy.via(`${agent.url}/`), {
      peerHonoursKeys: true,
      retry: { maxAttempts: 4, backoff: { initialMs: 10, maxMs: 20 } },
    });
    const runs = agent.runs();
    await expect(keyed.send('once only')).rejects.toBeDefined();
    expect(proxy.count(isCall('SendMessage'))).toBe(1);
    expect(agent.runs()).toBe(runs);
  });
});
