/**
 * The child side of the delegation extension (ADR 0039): reading the limits a parent sent, arming them against a
 * turn (budget fails, lapsed lease cancels), and renewals recorded in the store from GetTask calls (ADR 0044).
 * Time is a ManualClock; the checks run on a short real interval.
 */
import { describe, expect, it } from 'vitest';
import * as clientSide from '../../../src/client/delegation/index.js';
import type { Message } from '../../../src/protocol/model.js';
import { ManualClock } from '../../../src/store/clock.js';
import { createA2AServer } from '../../../src/server/create-server.js';
import {
  advertiseDelegation,
  armChildLimits,
  budgetExhaustedText,
  DELEGATION_EXTENSION_URI,
  DELEGATION_METADATA_KEY,
  DelegationLimitsError,
  LEASE_RENEWAL_HEADER,
  MIN_LEASE_MS,
  readChildLimits,
} from '../../../src/server/delegation/index.js';
import { MemoryTaskStore } from '../../../src/store/memory/index.js';
import { keepingLogger, userMessage } from '../leases/harness.js';
import { until } from './child-server.js';

function limited(entry: unknown): Message {
  return userMessage('work', { metadata: { [DELEGATION_METADATA_KEY]: entry as never } });
}

const T0 = Date.UTC(2026, 0, 1);

describe('the wire names', () => {
  it('are the same on the client and the server', () => {
    expect(clientSide.DELEGATION_EXTENSION_URI).toBe(DELEGATION_EXTENSION_URI);
    expect(clientSide.DELEGATION_METADATA_KEY).toBe(DELEGATION_METADATA_KEY);
    expect(clientSide.LEASE_RENEWAL_HEADER).toBe(LEASE_RENEWAL_HEADER);
    expect(clientSide.MIN_LEASE_MS).toBe(MIN_LEASE_MS);
  });

  it('what the client writes, the server reads back', () => {
    const m = clientSide.withDelegationLimits(userMessage('x'), { leaseMs: 5_000, deadline: T0 });
    expect(m.extensions).toEqual([DELEGATION_EXTENSION_URI]);
    expect(readChildLimits(m)).toEqual({ leaseMs: 5_000, deadline: T0 });
  });
});

describe('readChildLimits', () => {
  it('is undefined for a message without the entry', () => {
    expect(readChildLimits(userMessage('x'))).toBeUndefined();
  });

  it.each([
    ['not an object', 'soon', /must be an object/],
    ['a lease under the minimum', { leaseMs: 10 }, /leaseMs must be an integer of at least 1000/],
    ['a lease that is not a number', { leaseMs: '5000' }, /leaseMs must be an integer/],
    ['a deadline that is not a time', { deadline: 'tomorrow' }, /deadline must be an ISO 8601 time/],
    ['a deadline as a number', { deadline: 5 }, /deadline must be an ISO 8601 time/],
  ])('refuses %s with DELEGATION_LIMITS_INVALID', (_name, entry, text) => {
    const read = () => readChildLimits(limited(entry));
    expect(read).toThrow(DelegationLimitsError);
    expect(read).toThrow(text);
    try {
      read();
    } catch (err) {
      expect((err as DelegationLimitsError).code).toBe('DELEGATION_LIMITS_INVALID');
    }
  });
});

describe('armChildLimits', () => {
  /** Arms `message`; the parent's renewals are whatever `renewals.at` holds when the limits read it. */
  function arm(message: Message, clock: ManualClock) {
    const hits: string[] = [];
    const renewals = { at: undefined as number | undefined, reads: 0, fail: false };
    const disarm = armChildLimits({
      message,
      tenant: '',
      taskId: 't1',
      lastRenewal: () => {
        renewals.reads++;
        return renewals.fail ? Promise.reject(new Error('store down')) : Promise.resolve(renewals.at);
      },
      clock,
      logger: keepingLogger(),
      checkEveryMs: 5,
      readRenewalsEveryMs: 5,
      onBudgetExhausted: (text) => void hits.push(`budget: ${text}`),
      onLeaseLapsed: () => void hits.push('lease'),
    });
    return { hits, disarm, renewals };
  }

  it('fails the turn once its deadline passes, with the budget message, once', async () => {
    const clock = new ManualClock(T0);
    const { hits, disarm } = arm(limited({ deadline: new Date(T0 + 1_000).toISOString() }), clock);
    await new Promise((r) => setTimeout(r, 30));
    expect(hits).toEqual([]);
    clock.advance(1_000);
    await until(() => hits.length > 0);
    await new Promise((r) => setTimeout(r, 30));
    expect(hits).toEqual([`budget: ${budgetExhaustedText(T0 + 1_000)}`]);
    expect(budgetExhaustedText(T0 + 1_000)).toMatch(/budget ran out/);
    disarm();
  });

  it('cancels the turn when no renewal came for a lease, and not while renewals come', async () => {
    const clock = new ManualClock(T0);
    const { hits, disarm, renewals } = arm(limited({ leaseMs: 3_000 }), clock);
    for (let i = 0; i < 5; i++) {
      clock.advance(2_000);
      renewals.at = clock.now();
      await new Promise((r) => setTimeout(r, 15));
    }
    expect(hits).toEqual([]);
    clock.advance(3_001);
    await until(() => hits.length > 0);
    expect(hits).toEqual(['lease']);
    disarm();
  });

  it('counts the lease from the start of the turn until a renewal is recorded', async () => {
    const clock = new ManualClock(T0);
    const { hits, disarm, renewals } = arm(limited({ leaseMs: 3_000 }), clock);
    // A renewal older than the turn (an earlier turn's parent poll) does not shorten this turn's lease.
    renewals.at = T0 - 60_000;
    clock.advance(2_900);
    await new Promise((r) => setTimeout(r, 30));
    expect(hits).toEqual([]);
    clock.advance(200);
    await until(() => hits.length > 0);
    expect(hits).toEqual(['lease']);
    disarm();
  });

  it('reads the renewals again before calling a lease lapsed, so a renewal taken elsewhere counts', async () => {
    const clock = new ManualClock(T0);
    const { hits, disarm, renewals } = arm(limited({ leaseMs: 3_000 }), clock);
    // The renewal lands in the store (another replica took it) and the clock jumps past the lease at once.
    renewals.at = T0 + 2_000;
    clock.advance(4_000);
    await new Promise((r) => setTimeout(r, 40));
    expect(hits).toEqual([]);
    clock.advance(1_001);
    await until(() => hits.length > 0);
    expect(hits).toEqual(['lease']);
    disarm();
  });

  it('does not read the store before half the lease has passed without news', async () => {
    const clock = new ManualClock(T0);
    const { disarm, renewals } = arm(limited({ leaseMs: 4_000 }), clock);
    await new Promise((r) => setTimeout(r, 40));
    expect(renewals.reads).toBe(0);
    clock.advance(2_001);
    await until(() => renewals.reads > 0);
    disarm();
  });

  it('a read that fails is no news: the lease runs on and lapses', async () => {
    const clock = new ManualClock(T0);
    const { hits, disarm, renewals } = arm(limited({ leaseMs: 3_000 }), clock);
    renewals.fail = true;
    clock.advance(2_000);
    await until(() => renewals.reads > 0);
    expect(hits).toEqual([]);
    clock.advance(1_001);
    await until(() => hits.length > 0);
    expect(hits).toEqual(['lease']);
    disarm();
  });

  it('does nothing after it was disarmed', async () => {
    const clock = new ManualClock(T0);
    const { hits, disarm } = arm(
      limited({ leaseMs: 1_000, deadline: new Date(T0 + 1_000).toISOString() }),
      clock,
    );
    disarm();
    clock.advance(10_000);
    await new Promise((r) => setTimeout(r, 30));
    expect(hits).toEqual([]);
  });

  it('arms nothing for a message without limits', async () => {
    const clock = new ManualClock(T0);
    const { hits, renewals } = arm(userMessage('plain'), clock);
    clock.advance(1e9);
    await new Promise((r) => setTimeout(r, 20));
    expect(hits).toEqual([]);
    expect(renewals.reads).toBe(0);
  });

  it('refuses a malformed entry', () => {
    expect(() => arm(limited({ leaseMs: -1 }), new ManualClock(T0))).toThrow(DelegationLimitsError);
  });

  it('logs a callback that fails', async () => {
    const clock = new ManualClock(T0);
    const logger = keepingLogger();
    armChildLimits({
      message: limited({ deadline: new Date(T0).toISOString() }),
      tenant: '',
      taskId: 't9',
      clock,
      logger,
      checkEveryMs: 5,
      onBudgetExhausted: () => Promise.reject(new Error('store down')),
      onLeaseLapsed: () => undefined,
    });
    await until(() => logger.lines.length > 0);
    expect(logger.lines[0]).toMatchObject({
      level: 'error',
      message: 'delegation limit could not be enforced',
      fields: { taskId: 't9', error: 'store down' },
    });
  });
});

describe('renewals taken by GetTask', () => {
  async function setup() {
    const clock = new ManualClock(T0);
    const store = new MemoryTaskStore({ clock });
    const server = createA2AServer({
      agent: { execute: (ctx) => ctx.requireInput('wait') },
      card: { name: 'c', description: 'c', capabilities: advertiseDelegation({}) },
      store,
      clock,
      retention: false,
    });
    const res = await server.handler.sendMessage(
      { message: userMessage('x') },
      { tenant: '', requestedExtensions: [], activatedExtensions: new Set() },
    );
    const id = 'task' in res ? res.task.id : '';
    const lastRenewal = (taskId: string) => store.lastParentRenewal({ tenant: '', owner: '' }, taskId);
    return { clock, server, lastRenewal, fetch: server.fetch, id };
  }

  const rpc = (id: string, headers: Record<string, string>) =>
    new Request('http://localhost/', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id } }),
    });

  it('an answered JSON-RPC GetTask carrying the header renews in the store, and so does the REST route', async () => {
    const { clock, lastRenewal, fetch, id, server } = await setup();
    expect((await fetch(rpc(id, { [LEASE_RENEWAL_HEADER]: '1' }))).status).toBe(200);
    expect(await lastRenewal(id)).toBe(T0);
    clock.advance(500);
    const rest = await fetch(
      new Request(`http://localhost/tasks/${id}`, {
        headers: { [LEASE_RENEWAL_HEADER]: '1', 'a2a-version': '1.0' },
      }),
    );
    expect(rest.status).toBe(200);
    expect(await lastRenewal(id)).toBe(T0 + 500);
    await server.close();
  });

  it('does not renew without the header, nor for a GetTask that was refused', async () => {
    const { lastRenewal, fetch, server, id } = await setup();
    await fetch(rpc(id, {}));
    expect(await lastRenewal(id)).toBeUndefined();
    const refused = await fetch(rpc('no-such-task', { [LEASE_RENEWAL_HEADER]: '1' }));
    expect(((await refused.json()) as { error?: unknown }).error).toBeDefined();
    expect(await lastRenewal('no-such-task')).toBeUndefined();
    await server.close();
  });

  it('a caller who cannot see the task (another principal) renews nothing', async () => {
    const clock = new ManualClock(T0);
    const store = new MemoryTaskStore({ clock });
    const server = createA2AServer({
      agent: { execute: (ctx) => ctx.requireInput('wait') },
      card: { name: 'c', description: 'c', capabilities: advertiseDelegation({}) },
      store,
      clock,
      retention: false,
      http: { authenticate: (req) => req.headers.get('x-user') ?? 'anonymous' },
    });
    const res = await server.handler.sendMessage(
      { message: userMessage('x') },
      { tenant: '', principal: 'alice', requestedExtensions: [], activatedExtensions: new Set() },
    );
    const id = 'task' in res ? res.task.id : '';
    const mallory = await server.fetch(rpc(id, { [LEASE_RENEWAL_HEADER]: '1', 'x-user': 'mallory' }));
    expect(((await mallory.json()) as { error?: unknown }).error).toBeDefined();
    expect(await store.lastParentRenewal({ tenant: '', owner: 'alice' }, id)).toBeUndefined();
    await server.fetch(rpc(id, { [LEASE_RENEWAL_HEADER]: '1', 'x-user': 'alice' }));
    expect(await store.lastParentRenewal({ tenant: '', owner: 'alice' }, id)).toBe(T0);
    await server.close();
  });

  it('advertises the extension on the card once', () => {
    const once = advertiseDelegation({});
    expect(advertiseDelegation(once)).toBe(once);
    expect(once.extensions?.map((e) => e.uri)).toEqual([DELEGATION_EXTENSION_URI]);
  });
});
