/**
 * Metrics through the OpenTelemetry metrics API (ADR 0094), read from a real SDK MeterProvider: sends by
 * admission outcome, each call's duration by method and outcome, turns and their duration, the store commits of a
 * turn (latency and batch size), push deliveries and their lag, recovery takeovers. No attribute holds a key.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_METADATA_KEY, mintKey } from '../../src/idempotency/index.js';
import { createA2AServer } from '../../src/server/create-server.js';
import { silentLogger } from '../../src/server/observability/logger.js';
import { InMemoryMetrics } from '../../src/server/observability/metrics.js';
import { METRIC } from '../../src/server/observability/metric-names.js';
import { pushServer, FAST_PUSH } from '../server/push/push-server.js';
import { startReceiver } from '../server/push/receiver.js';
import { rpcRequest, restRequest, userMsg } from '../helpers/http.js';
import {
  freshStore,
  GatedAgent,
  LEASE_MS,
  replica,
  replicaStore,
  startTurn,
  until,
  userMessage,
} from '../server/leases/harness.js';
import { attributeValues, counted, meteredHost, recorded, type MeteredHost } from './metrics-harness.js';

const msg = (text: string) => userMsg(crypto.randomUUID(), text);

/** Completes after one durable step, so the turn makes two commits. */
const stepping = {
  execute: async (ctx: {
    step<T>(name: string, fn: () => Promise<T>): Promise<T>;
    working(text: string): Promise<void>;
    complete(text: string): Promise<void>;
    userText: string;
  }) => {
    await ctx.working('thinking');
    const n = await ctx.step('count', () => Promise.resolve(ctx.userText.length));
    await ctx.complete(`length ${n}`);
  },
};
const card = { name: 'stepper', description: 'steps' };

let host: MeteredHost | undefined;
afterEach(async () => {
  await host?.shutdown();
  host = undefined;
});

describe('openTelemetryMetrics', () => {
  it('counts admissions, times calls by method and outcome, counts turns and their commits', async () => {
    host = meteredHost();
    const s = createA2AServer({
      agent: stepping,
      card,
      retention: false,
      logger: silentLogger,
      metrics: host.metrics,
    });
    try {
      const key = mintKey();
      const first = { ...msg('first'), metadata: { [IDEMPOTENCY_METADATA_KEY]: key } };
      expect((await s.fetch(rpcRequest('SendMessage', { message: first }))).status).toBe(200);
      // The same send again: replayed; another message under the same key: a conflict.
      expect((await s.fetch(rpcRequest('SendMessage', { message: first }))).status).toBe(200);
      const other = { ...msg('other'), metadata: { [IDEMPOTENCY_METADATA_KEY]: key } };
      const conflict = (await (await s.fetch(rpcRequest('SendMessage', { message: other }))).json()) as {
        error?: unknown;
      };
      expect(conflict.error).toBeDefined();
      // One REST call, answered NOT_FOUND.
      expect((await s.fetch(restRequest('GET', '/tasks/nope'))).status).toBe(404);
      await until(async () => counted((await host!.collect()).get(METRIC.turns.name)) === 1);

      const all = await host.collect();
      const admission = all.get(METRIC.admission.name)!;
      expect(admission.descriptor.unit).toBe('{send}');
      expect(counted(admission, { outcome: 'claimed' })).toBe(1);
      expect(counted(admission, { outcome: 'replayed' })).toBe(1);
      expect(counted(admission, { outcome: 'conflict', reason: 'IDEMPOTENCY_KEY_REUSED' })).toBe(1);

      const calls = all.get(METRIC.callDuration.name)!;
      expect(calls.descriptor.unit).toBe('s');
      expect(recorded(calls, { 'a2a.method.name': 'SendMessage', 'a2a_once.outcome': 'ok' }).count).toBe(2);
      expect(
        recorded(calls, {
          'a2a.method.name': 'SendMessage',
          'a2a_once.outcome': 'error',
          'error.type': 'IdempotencyKeyReusedError',
        }).count,
      ).toBe(1);
      expect(
        recorded(calls, {
          'a2a.method.name': 'GetTask',
          'a2a_once.outcome': 'error',
          'error.type': 'TaskNotFoundError',
        }).count,
      ).toBe(1);
      expect(recorded(calls).sum).toBeGreaterThan(0);

      expect(all.get(METRIC.turns.name)!.descriptor.unit).toBe('{turn}');
      expect(counted(all.get(METRIC.turns.name), { 'a2a.task.state': 'TASK_STATE_COMPLETED' })).toBe(1);
      expect(
        recorded(all.get(METRIC.turnDuration.name), { 'a2a.task.state': 'TASK_STATE_COMPLETED' }).count,
      ).toBe(1);

      // The turn stored its working status, its step and its completion: at least one commit, three writes in all.
      const commits = recorded(all.get(METRIC.commitDuration.name));
      const sizes = recorded(all.get(METRIC.commitSize.name));
      expect(all.get(METRIC.commitDuration.name)!.descriptor.unit).toBe('s');
      expect(all.get(METRIC.commitSize.name)!.descriptor.unit).toBe('{write}');
      expect(commits.count).toBeGreaterThanOrEqual(1);
      expect(sizes.count).toBe(commits.count);
      expect(sizes.sum).toBeGreaterThanOrEqual(2);

      // Never a key, in any attribute of any metric.
      expect(attributeValues(all).filter((v) => v.includes(key))).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('counts push deliveries by outcome and records the lag of delivered events', async () => {
    host = meteredHost();
    const receiver = await startReceiver();
    const s = pushServer(FAST_PUSH, { metrics: host.metrics });
    try {
      const res = await s.fetch(
        rpcRequest('SendMessage', {
          message: msg('push me'),
          configuration: { taskPushNotificationConfig: { id: 'c1', url: `${receiver.url}/hook` } },
        }),
      );
      expect(res.status).toBe(200);
      await receiver.until((r) => r.received.some((x) => x.body.includes('TASK_STATE_COMPLETED')));
      const posts = receiver.received.length;
      await until(
        async () =>
          counted((await host!.collect()).get(METRIC.pushDeliveries.name), {
            'a2a_once.outcome': 'delivered',
          }) >= posts,
      );
      const all = await host.collect();
      expect(all.get(METRIC.pushDeliveries.name)!.descriptor.unit).toBe('{attempt}');
      expect(counted(all.get(METRIC.pushDeliveries.name), { 'a2a_once.outcome': 'delivered' })).toBe(posts);
      const lag = all.get(METRIC.pushLag.name)!;
      expect(lag.descriptor.unit).toBe('s');
      // Events with a status timestamp (the task, its status updates; not its artifact update) have a lag.
      // The push agent's one artifact update has none.
      expect(recorded(lag).count).toBe(posts - 1);
      expect(recorded(lag).sum).toBeGreaterThanOrEqual(0);
    } finally {
      await s.close();
      await receiver.close();
    }
  });

  it('counts a recovery takeover by its outcome', async () => {
    host = meteredHost();
    const s = await freshStore('memory');
    const lost = new GatedAgent(true);
    const a = replica(s, s.store, lost);
    const { task } = await startTurn(a, lost, userMessage('render the report'));
    const agent = new GatedAgent(true);
    const b = replica(s, await replicaStore(s), agent, { metrics: host.metrics });
    s.clock.advance(LEASE_MS + 1); // replica A is gone: nobody renewed its lease
    agent.gate(0).open();
    expect((await b.fetch(rpcRequest('GetTask', { id: task.id }))).status).toBe(200);
    const all = await host.collect();
    expect(all.get(METRIC.recoveries.name)!.descriptor.unit).toBe('{task}');
    expect(counted(all.get(METRIC.recoveries.name), { 'a2a_once.outcome': 'resumed' })).toBe(1);
    lost.gate(0).open();
  });
});

describe('a sink without histograms', () => {
  it('gets counters only: InMemoryMetrics counts turns, and no call is timed', async () => {
    const metrics = new InMemoryMetrics();
    const s = createA2AServer({ agent: stepping, card, retention: false, logger: silentLogger, metrics });
    try {
      expect(s.handler.histograms).toBeUndefined();
      expect((await s.fetch(rpcRequest('SendMessage', { message: msg('hi') }))).status).toBe(200);
      await until(() => metrics.total(METRIC.turns.name) === 1);
      expect(metrics.total(METRIC.admission.name, { outcome: 'claimed' })).toBe(1);
      expect(Object.keys(metrics.snapshot()).some((k) => k.startsWith(METRIC.callDuration.name))).toBe(false);
    } finally {
      await s.close();
    }
  });
});
