/**
 * Issue 3 point 6: every admission outcome (claimed, replayed, conflict, expired, refused, released) is counted
 * on `a2a_once.admission` with outcome / tenant / reason and is available to the host; logs carry a key hash,
 * never the key (SEMANTICS §1 "Keys in logs").
 */
import { afterEach, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_METADATA_KEY, keyHash } from '../../../src/idempotency/index.js';
import { ADMISSION_COUNTER } from '../../../src/server/observability/metrics.js';
import type { Runner } from '../../../src/server/runner/runner.js';
import {
  BINDINGS,
  HOUR,
  NoKeysStore,
  errorOf,
  freshKey,
  keyedMessage,
  makeServer,
  send,
  taskOf,
  until,
  userMessage,
  type Binding,
  type TestServer,
} from './helpers.js';

const servers: TestServer[] = [];
function server(o: Parameters<typeof makeServer>[0] = {}): TestServer {
  const s = makeServer(o);
  servers.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

function failNextStart(t: TestServer): void {
  const runner: Runner = t.server.handler.runner;
  const start = runner.start.bind(runner);
  let fail = true;
  runner.start = (turn) => {
    if (fail) {
      fail = false;
      throw new Error('no worker available');
    }
    start(turn);
  };
}

/** Drives one send per admission outcome on `tenant`; returns every key it used. */
async function everyOutcome(t: TestServer, binding: Binding, tenant: string): Promise<string[]> {
  const opts = { tenant };
  const keys: string[] = [];
  const k = () => {
    const key = freshKey();
    keys.push(key);
    return key;
  };
  // claimed, then replayed
  const m = keyedMessage('hello', k());
  taskOf(await send(t.ep, binding, m, opts));
  taskOf(await send(t.ep, binding, m, opts));
  // conflict
  errorOf(await send(t.ep, binding, keyedMessage('hello', keys[0]), opts));
  // expired
  const old = keyedMessage('old', k());
  taskOf(await send(t.ep, binding, old, opts));
  t.clock.advance(2 * HOUR);
  await t.memory.purgeExpired({ terminalMaxAgeMs: 0 });
  errorOf(await send(t.ep, binding, old, opts));
  // refused: at capacity (cap 3: the expired tombstone and the first key still count)
  taskOf(await send(t.ep, binding, keyedMessage('third', k()), opts));
  errorOf(await send(t.ep, binding, keyedMessage('over the cap', k()), opts));
  // refused: malformed key (never logged, it is not a key)
  errorOf(
    await send(
      t.ep,
      binding,
      { ...userMessage('bad'), metadata: { [IDEMPOTENCY_METADATA_KEY]: 'short' } },
      opts,
    ),
  );
  return keys;
}

describe.each(BINDINGS)('admission metrics over %s', (binding: Binding) => {
  it('counts claimed, replayed, conflict, expired and refused with tenant and reason', async () => {
    const t = server({ keyTtlMs: HOUR, maxKeysPerTenant: 3 });
    await everyOutcome(t, binding, 'tenant-m');
    const total = (match: Record<string, string>) =>
      t.metrics.total(ADMISSION_COUNTER, { tenant: 'tenant-m', ...match });
    expect(total({ outcome: 'claimed' })).toBe(3);
    expect(total({ outcome: 'replayed' })).toBe(1);
    expect(total({ outcome: 'conflict', reason: 'IDEMPOTENCY_KEY_REUSED' })).toBe(1);
    expect(total({ outcome: 'expired', reason: 'IDEMPOTENCY_KEY_EXPIRED' })).toBe(1);
    expect(total({ outcome: 'refused', reason: 'IDEMPOTENCY_CAPACITY' })).toBe(1);
    expect(total({ outcome: 'refused', reason: 'IDEMPOTENCY_KEY_INVALID' })).toBe(1);
    expect(total({})).toBe(8);
    // Nothing was counted on another tenant.
    expect(t.metrics.total(ADMISSION_COUNTER, { tenant: '' })).toBe(0);
  });

  it('counts refusals of the lifecycle guard and of a store without keys, with their reasons', async () => {
    const t = server();
    errorOf(await send(t.ep, binding, userMessage('hi', { taskId: 'missing' })));
    const done = taskOf(await send(t.ep, binding, userMessage('done')));
    errorOf(await send(t.ep, binding, userMessage('more', { taskId: done.id })));
    expect(t.metrics.total(ADMISSION_COUNTER, { outcome: 'refused', reason: 'TASK_NOT_FOUND' })).toBe(1);
    expect(t.metrics.total(ADMISSION_COUNTER, { outcome: 'refused', reason: 'UNSUPPORTED_OPERATION' })).toBe(
      1,
    );
    const noKeys = server({ wrap: (mem) => new NoKeysStore(mem) });
    errorOf(await send(noKeys.ep, binding, keyedMessage('hello')));
    expect(
      noKeys.metrics.total(ADMISSION_COUNTER, { outcome: 'refused', reason: 'UNSUPPORTED_OPERATION' }),
    ).toBe(1);
  });

  it('counts a released claim', async () => {
    const t = server();
    failNextStart(t);
    errorOf(await send(t.ep, binding, keyedMessage('hello'), { tenant: 'tenant-r' }));
    await until(
      () => t.metrics.total(ADMISSION_COUNTER, { outcome: 'released', tenant: 'tenant-r' }) === 1,
      2000,
      'released counted',
    );
  });

  it('exposes the counters to the host as a snapshot, with no key in it', async () => {
    const t = server({ keyTtlMs: HOUR, maxKeysPerTenant: 3 });
    const keys = await everyOutcome(t, binding, 'tenant-s');
    const snap = t.metrics.snapshot();
    expect(Object.keys(snap)).toContain(`${ADMISSION_COUNTER}|outcome=claimed,tenant=tenant-s`);
    expect(Object.keys(snap)).toContain(
      `${ADMISSION_COUNTER}|outcome=conflict,reason=IDEMPOTENCY_KEY_REUSED,tenant=tenant-s`,
    );
    const text = JSON.stringify(snap);
    for (const key of keys) expect(text).not.toContain(key);
  });
});

describe.each(BINDINGS)('logs carry a key hash, never the key, over %s', (binding: Binding) => {
  it('every keyed admission and refusal is logged with keyHash and without the key', async () => {
    const t = server({ keyTtlMs: HOUR, maxKeysPerTenant: 3 });
    const keys = await everyOutcome(t, binding, 'tenant-l');
    // A keyed continuation too (on the default tenant, below its cap).
    const askKey = freshKey();
    keys.push(askKey);
    const ask = keyedMessage('input please', askKey);
    const first = taskOf(await send(t.ep, binding, ask));
    expect(first.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    const contKey = freshKey();
    keys.push(contKey);
    taskOf(await send(t.ep, binding, keyedMessage('answer', contKey, { taskId: first.id })));

    const text = t.logger.text();
    expect(t.logger.entries.length).toBeGreaterThan(0);
    for (const key of keys) {
      expect(text, 'a key appears in clear in the log').not.toContain(key);
    }
    const logged = new Set(t.logger.entries.map((e) => e.fields?.keyHash).filter((h) => h !== undefined));
    // The first key (claimed, replayed, conflict) and the expired one are logged by hash.
    expect(logged).toContain(keyHash(keys[0]!));
    expect(logged).toContain(keyHash(keys[1]!));
    expect(logged).toContain(keyHash(contKey));
    const refusal = t.logger.entries.find(
      (e) => e.fields?.keyHash === keyHash(keys[1]!) && e.fields.outcome === 'expired',
    );
    expect(refusal?.fields).toMatchObject({ reason: 'IDEMPOTENCY_KEY_EXPIRED' });
  });
});
