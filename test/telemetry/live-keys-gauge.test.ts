/**
 * The `a2a_once.keys.live` gauge (ADR 0094) through a real OpenTelemetry MeterProvider, on each store: after keyed
 * sends it reads the store's live keys, every scope's together; the store is counted at most once per maximum age
 * however often the reader collects; and without a gauge-keeping sink nothing is counted at all.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { DataPoint } from '@opentelemetry/sdk-metrics';
import { IDEMPOTENCY_METADATA_KEY, mintKey } from '../../src/idempotency/index.js';
import { observeLiveKeys } from '../../src/server/observability/live-keys-gauge.js';
import { InMemoryMetrics } from '../../src/server/observability/metrics.js';
import { rpcRequest, userMsg } from '../helpers/http.js';
import { freshStore, replica, STORE_KINDS } from '../server/leases/harness.js';
import { meteredHost, type MeteredHost } from './metrics-harness.js';

let host: MeteredHost | undefined;
afterEach(async () => {
  await host?.shutdown();
  host = undefined;
});

const keyed = (text: string) => ({
  ...userMsg(crypto.randomUUID(), text),
  metadata: { [IDEMPOTENCY_METADATA_KEY]: mintKey() },
});

async function gauge(h: MeteredHost): Promise<number | undefined> {
  const m = (await h.collect()).get('a2a_once.keys.live');
  return (m?.dataPoints as DataPoint<number>[] | undefined)?.[0]?.value;
}

describe.each(STORE_KINDS)('on the %s store', (kind) => {
  it('reads the live keys the store holds after keyed sends', async () => {
    host = meteredHost();
    const s = await freshStore(kind);
    const server = replica(s, s.store, { execute: (ctx) => ctx.complete('ok') }, { metrics: host.metrics });
    for (const text of ['one', 'two', 'three'])
      expect((await server.fetch(rpcRequest('SendMessage', { message: keyed(text) }))).status).toBe(200);
    await server.fetch(rpcRequest('SendMessage', { message: userMsg(crypto.randomUUID(), 'unkeyed') }));
    expect(await gauge(host)).toBe(3);
    const m = (await host.collect()).get('a2a_once.keys.live');
    expect(m?.descriptor.unit).toBe('{key}');
    await server.close();
  });
});

describe('the count behind the gauge', () => {
  it('is read at most once per maximum age, and not at all for a sink without gauges', async () => {
    host = meteredHost();
    let counts = 0;
    let keys = 5;
    const store = { countLiveKeys: () => (counts++, Promise.resolve(keys)) };
    let t = 0;
    observeLiveKeys(host.metrics, store, () => t, 15_000);
    expect(await gauge(host)).toBe(5);
    keys = 9;
    t = 14_999;
    expect(await gauge(host)).toBe(5);
    expect(counts).toBe(1);
    t = 15_000;
    expect(await gauge(host)).toBe(9);
    expect(counts).toBe(2);

    observeLiveKeys(new InMemoryMetrics(), store);
    expect(counts).toBe(2);
  });

  it('leaves the gauge out of a collection when the store does not answer, and reads again next time', async () => {
    host = meteredHost();
    let answer = false;
    const store = {
      countLiveKeys: () => (answer ? Promise.resolve(4) : new Promise<number>(() => undefined)),
    };
    observeLiveKeys(host.metrics, store, Date.now, 0);
    const started = Date.now();
    expect(await gauge(host)).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(5000);
    answer = true;
    expect(await gauge(host)).toBe(4);
  }, 15_000);
});
