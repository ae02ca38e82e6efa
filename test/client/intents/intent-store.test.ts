/**
 * The intent store contract, run against both stores, and what the client records and settles.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  A2AClient,
  MemoryIntentStore,
  OutcomeUnknownError,
  SqliteIntentStore,
  intentIdentityOf,
} from '../../../src/client/index.js';
import type { IntentStore, SendIntent } from '../../../src/client/index.js';
import { mintKey } from '../../../src/idempotency/index.js';
import { startJsAgent } from '../harness/a2a-js-server.js';
import type { JsAgent } from '../harness/a2a-js-server.js';
import { FaultProxy, isCall } from '../harness/fault-proxy.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-intents-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function intent(n: number, target = 'http://agent/a'): SendIntent {
  return {
    key: `test-intent-key-${String(n).padStart(4, '0')}`,
    messageId: `m-${n}`,
    target,
    request: { message: { messageId: `m-${n}`, role: 'ROLE_USER', parts: [{ text: `t${n}` }] } },
    streaming: n % 2 === 0,
    createdAt: 1_000 + n,
  };
}

const stores: [string, () => IntentStore][] = [
  ['memory', () => new MemoryIntentStore()],
  ['sqlite', () => new SqliteIntentStore(new Database(':memory:'))],
];

describe.each(stores)('IntentStore contract (%s)', (_name, make) => {
  it('lists pending intents oldest first, per target, with their whole request', async () => {
    const s = make();
    await s.record(intent(2));
    await s.record(intent(1));
    await s.record(intent(3, 'http://agent/b'));
    expect((await s.pending('http://agent/a')).map((i) => i.messageId)).toEqual(['m-1', 'm-2']);
    expect((await s.pending()).map((i) => i.messageId)).toEqual(['m-1', 'm-2', 'm-3']);
    expect((await s.pending('http://agent/a'))[0]).toEqual(intent(1));
  });

  it('keeps the first record of an intent, and forgets settled intents', async () => {
    const s = make();
    const a = intent(1);
    await s.record(a);
    await s.record({ ...a, messageId: 'other' });
    expect((await s.pending()).map((i) => i.messageId)).toEqual(['m-1']);
    await s.settle(intentIdentityOf(a), { status: 'answered', taskId: 't' });
    await s.settle({ target: a.target, key: 'unknown-key-0000000' }, { status: 'not-sent' });
    expect(await s.pending()).toEqual([]);
  });

  it('holds the same key for two agents as two intents, each settled only by its own identity', async () => {
    const s = make();
    const toA = intent(1, 'http://agent/a');
    const toB = { ...intent(1, 'http://agent/b'), messageId: 'm-b', createdAt: 2_000 };
    await s.record(toA);
    await s.record(toB);
    expect((await s.pending()).map((i) => [i.target, i.messageId])).toEqual([
      ['http://agent/a', 'm-1'],
      ['http://agent/b', 'm-b'],
    ]);
    await s.settle(intentIdentityOf(toB), { status: 'answered', taskId: 'task-of-b' });
    expect(await s.pending('http://agent/a')).toEqual([toA]);
    expect(await s.pending('http://agent/b')).toEqual([]);
  });

  it('holds the same key for two tenants of one agent as two intents; no tenant and "" are the same', async () => {
    const s = make();
    const base = intent(3);
    const inT1 = { ...base, request: { ...base.request, tenant: 't1' } };
    const inT2 = { ...base, messageId: 'm-t2', request: { ...base.request, tenant: 't2' }, createdAt: 2_000 };
    const untenanted = { ...base, messageId: 'm-none', createdAt: 3_000 };
    const emptyTenant = { ...base, messageId: 'm-empty', request: { ...base.request, tenant: '' } };
    for (const i of [inT1, inT2, untenanted, emptyTenant]) await s.record(i);
    // '' is no tenant: the untenanted record came first and keeps its place.
    expect((await s.pending()).map((i) => i.messageId)).toEqual(['m-3', 'm-t2', 'm-none']);
    await s.settle({ target: base.target, tenant: 't1', key: base.key }, { status: 'not-sent' });
    await s.settle({ target: base.target, tenant: '', key: base.key }, { status: 'rejected', reason: 'X' });
    expect((await s.pending()).map((i) => i.messageId)).toEqual(['m-t2']);
    expect(intentIdentityOf(emptyTenant)).toEqual(intentIdentityOf(untenanted));
  });
});

describe('MemoryIntentStore', () => {
  it('tells how an intent was settled, by its identity', async () => {
    const s = new MemoryIntentStore();
    const a = intent(1, 'http://agent/a');
    const b = intent(1, 'http://agent/b');
    await s.record(a);
    await s.record(b);
    await s.settle(intentIdentityOf(a), { status: 'answered', taskId: 't-a' });
    expect(s.outcomeOf(intentIdentityOf(a))).toEqual({ status: 'answered', taskId: 't-a' });
    expect(s.outcomeOf(intentIdentityOf(b))).toBeUndefined();
  });
});

describe('SqliteIntentStore', () => {
  it('survives closing and reopening the database file (a client restart)', async () => {
    const file = join(dir, 'restart.db');
    const db1 = new Database(file);
    await new SqliteIntentStore(db1).record(intent(7));
    db1.close();
    const db2 = new Database(file);
    expect((await new SqliteIntentStore(db2).pending()).map((i) => i.key)).toEqual([intent(7).key]);
    db2.close();
  });

  it('refuses a table name that is not an identifier', () => {
    expect(() => new SqliteIntentStore(new Database(':memory:'), { table: 'x; DROP TABLE y' })).toThrow(
      TypeError,
    );
  });
});

describe('the client and its intents (peer ignores keys)', () => {
  let agent: JsAgent;
  let proxy: FaultProxy;
  beforeAll(async () => {
    agent = await startJsAgent();
    proxy = await FaultProxy.start(agent.url);
  });
  afterAll(async () => {
    await proxy.close();
    await agent.close();
  });

  it('settles a keyed send that got an answer, and records nothing for an unkeyed one', async () => {
    const store = new MemoryIntentStore();
    const client = A2AClient.fromEndpoint(agent.jsonRpcUrl, { intentStore: store });
    const key = mintKey();
    await client.send('keyed', { key });
    expect(store.outcomeOf({ target: agent.jsonRpcUrl, key })?.status).toBe('answered');
    await client.send('unkeyed');
    expect(await store.pending()).toEqual([]);
  });

  it('leaves an ambiguous keyed send pending, and recovery does not resend it to a peer that ignores keys', async () => {
    const store = new SqliteIntentStore(new Database(join(dir, 'js.db')));
    const url = proxy.via(agent.jsonRpcUrl);
    const first = A2AClient.fromEndpoint(url, { intentStore: store, retry: false });
    proxy.inject({ kind: 'drop-response' }, isCall('SendMessage'));
    const key = mintKey();
    await expect(first.send('lost answer', { key })).rejects.toBeInstanceOf(OutcomeUnknownError);
    expect((await store.pending(url)).map((i) => i.key)).toEqual([key]);
    const before = agent.executions.length;
    const restarted = A2AClient.fromEndpoint(url, { intentStore: store });
    const report = await restarted.recoverPending();
    expect(report).toEqual([
      expect.objectContaining({ status: 'skipped', messageId: expect.any(String) as string }),
    ]);
    expect(agent.executions.length).toBe(before);
    expect(await store.pending(url)).toHaveLength(1);
  });
});
