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

  it('keeps the first record of a key, and forgets settled intents', async () => {
    const s = make();
    const a = intent(1);
    await s.record(a);
    await s.record({ ...a, messageId: 'other' });
    expect((await s.pending()).map((i) => i.messageId)).toEqual(['m-1']);
    await s.settle(a.key, { status: 'answered', taskId: 't' });
    await s.settle('unknown-key-0000000', { status: 'not-sent' });
    expect(await s.pending()).toEqual([]);
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
    expect(store.outcomeOf(key)?.status).toBe('answered');
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
