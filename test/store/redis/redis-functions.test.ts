/**
 * The store's scripts as one function library (ADR 0133), on a `redis-server` of the test's own (a FUNCTION FLUSH
 * on the shared server would pull the library from under every other test): the first call loads the library,
 * the calls after it run as functions (FCALL in INFO commandstats, no EVALSHA), a flushed library is loaded again,
 * another version's library beside it is left alone, and a server that refuses functions is used by EVALSHA with
 * one warning.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisTaskStore, redisConnection } from '../../../src/store/redis/index.js';
import type { RedisConnection } from '../../../src/store/redis/redis-connection.js';
import { libraryName } from '../../../src/store/redis/redis-functions.js';
import { ALICE, makeTask, statusEvent, withState } from '../../store-contract/fixtures/tasks.js';
import { redisServerInstalled, startOwnRedis, type OwnRedis } from './redis-server.js';

type Client = ReturnType<typeof createClient>;

/** Calls per command since the last CONFIG RESETSTAT, by lower-case name. */
async function callsByCommand(client: Client): Promise<Map<string, number>> {
  const text = await client.info('commandstats');
  return new Map([...text.matchAll(/cmdstat_([^:]+):calls=(\d+)/g)].map((m) => [m[1]!, Number(m[2])]));
}

/** One keyed creation and its commit, then a listing: the scripts of a keyed send and of ListTasks. */
async function sendOnce(store: RedisTaskStore, id: string): Promise<void> {
  const task = makeTask(id);
  const claim = { key: `k-${id}`, messageId: `m-${id}`, digest: 'd', expiresAt: Date.now() + 60_000 };
  expect((await store.createTask(ALICE, { task, claim })).outcome).toBe('created');
  const done = withState(task, 'TASK_STATE_COMPLETED');
  const write = { expectFence: 1, task: done, events: [statusEvent(task, 'TASK_STATE_COMPLETED')] };
  expect((await store.commit(ALICE, id, write)).ok).toBe(true);
  expect((await store.listTasks(ALICE, { pageSize: 100 })).records.map((r) => r.task.id)).toContain(id);
}

describe.skipIf(!redisServerInstalled)('Redis function library', () => {
  let own: OwnRedis;
  let client: Client;
  beforeAll(async () => {
    own = await startOwnRedis('volatile');
    client = createClient({ url: own.url });
    client.on('error', () => undefined);
    await client.connect();
  }, 30_000);
  afterAll(async () => {
    await client?.close();
    await own?.dispose();
  });
  const libraries = () => client.sendCommand<unknown[]>(['FUNCTION', 'LIST', 'LIBRARYNAME', 'a2a_once_*']);

  it('is loaded by the first call, then every script runs as a function of it', async () => {
    await client.sendCommand(['FUNCTION', 'FLUSH']);
    const store = new RedisTaskStore({ client, prefix: 'fn1:' });
    await client.sendCommand(['CONFIG', 'RESETSTAT']);
    await sendOnce(store, 't1');
    await sendOnce(store, 't2');
    const calls = await callsByCommand(client);
    expect(calls.get('function|load')).toBe(1);
    expect(calls.get('fcall')).toBeGreaterThanOrEqual(4);
    expect(calls.get('fcall_ro')).toBeGreaterThanOrEqual(2);
    expect(calls.has('evalsha')).toBe(false);
    expect(calls.has('eval')).toBe(false);
    expect(await libraries()).toHaveLength(1);
    await store.close();
  });

  it('is loaded again after FUNCTION FLUSH, and leaves another version of it alone', async () => {
    const store = new RedisTaskStore({ client, prefix: 'fn2:' });
    await sendOnce(store, 't1');
    await client.sendCommand(['FUNCTION', 'FLUSH']);
    // Another version of the store, as in a rolling upgrade: a library of its own name.
    const other = `#!lua name=a2a_once_0000000000000000\nredis.register_function('a2a_once_0000000000000000_x', function() return 1 end)`;
    await client.sendCommand(['FUNCTION', 'LOAD', other]);
    await sendOnce(store, 't2');
    // Each library's entry, as a flat list (RESP2) or a map (RESP3): its name follows `library_name`.
    const names = (await libraries()).map((l) => {
      const flat = Array.isArray(l) ? l : Object.entries(l as object).flat();
      return String(flat[flat.indexOf('library_name') + 1]);
    });
    expect(names.sort()).toEqual(['a2a_once_0000000000000000', libraryName()].sort());
    expect(await client.sendCommand(['FCALL', 'a2a_once_0000000000000000_x', '0'])).toBe(1);
    await store.close();
  });

  it('runs by EVALSHA, with one warning, where the server refuses functions', async () => {
    const conn = redisConnection(client);
    // What a proxy that does not pass functions answers.
    const refusing: RedisConnection = {
      ...conn,
      send: (args, routeKey) =>
        args[0]?.startsWith('FCALL') || args[0] === 'FUNCTION'
          ? Promise.reject(new Error(`ERR unknown command '${args[0]}'`))
          : conn.send(args, routeKey),
    };
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      const store = new RedisTaskStore({ client: refusing, prefix: 'fn3:' });
      await client.sendCommand(['CONFIG', 'RESETSTAT']);
      await sendOnce(store, 't1');
      await sendOnce(store, 't2');
      const calls = await callsByCommand(client);
      expect(calls.get('evalsha')).toBeGreaterThanOrEqual(4);
      expect(calls.has('fcall')).toBe(false);
      await store.close();
      await new Promise((r) => setImmediate(r));
      expect(warnings.filter((w) => /refused Redis Functions/.test(w))).toHaveLength(1);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
