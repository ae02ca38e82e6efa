/**
 * The contract suite, races included, against a three-node Redis Cluster the test starts itself
 * (test/store/redis/redis-server.ts): every script runs on the slot of its scope's hash tag, so none ever meets
 * CROSSSLOT, and scopes spread over the nodes. The peer is a second cluster client, so the races run on separate
 * connections to every node. A fresh key prefix per test, deleted on every master after.
 */
import { Cluster as IoredisCluster } from 'ioredis';
import { createCluster } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisTaskStore, redisConnection } from '../../src/store/redis/index.js';
import { scopeTag } from '../../src/store/redis/redis-keys.js';
import { redisServerInstalled, startOwnCluster, type OwnCluster } from '../store/redis/redis-server.js';
import { describeTaskStoreContract } from './contract.js';
import { ALICE, BOB, OTHER_TENANT, makeTask, statusEvent, withState } from './fixtures/tasks.js';
import { DriverFaults } from './fixtures/driver-faults.js';
import { faultyConnection, freshPrefix, redisContractStores } from './redis-backend.js';

if (!redisServerInstalled) {
  if (process.env.CI === 'true')
    throw new Error('CI=true and redis-server is not installed: refusing to skip');
  console.warn(
    '[a2a-once] NOTICE: redis-server is not installed; the Redis Cluster contract tests are skipped.',
  );
}

async function connectCluster(ports: readonly number[]) {
  const cluster = createCluster({ rootNodes: ports.map((p) => ({ url: `redis://127.0.0.1:${p}` })) });
  cluster.on('error', () => undefined);
  await cluster.connect();
  return cluster;
}
type Cluster = Awaited<ReturnType<typeof connectCluster>>;

/** Deletes every key under `prefix` on every master. */
async function dropPrefix(cluster: Cluster, prefix: string): Promise<void> {
  for (const master of cluster.masters) {
    const node = await cluster.nodeClient(master);
    let cursor = '0';
    do {
      const r = await node.scan(cursor, { MATCH: `${prefix}*`, COUNT: 1000 });
      cursor = String(r.cursor);
      for (const key of r.keys) await node.unlink(key);
    } while (cursor !== '0');
  }
}

describe.skipIf(!redisServerInstalled)('Redis Cluster', () => {
  let own: OwnCluster;
  let main: Cluster;
  let second: Cluster;
  beforeAll(async () => {
    own = await startOwnCluster();
    [main, second] = await Promise.all([connectCluster(own.ports), connectCluster(own.ports)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([main?.close(), second?.close()]);
    await own?.dispose();
  });

  it('spreads the test scopes over more than one node', async () => {
    const slots = await Promise.all(
      [ALICE, BOB, OTHER_TENANT].map((s) =>
        main.sendCommand(undefined, true, ['CLUSTER', 'KEYSLOT', `{${scopeTag(s)}}`]),
      ),
    );
    const owners = new Set(
      slots.map((slot) => main.masters.find((m) => main.getSlotMaster(Number(slot)).id === m.id)?.id),
    );
    expect(owners.size).toBeGreaterThan(1);
  });

  /** Empties every master's function library and script cache: the store must load what it runs again. */
  async function flushScripts(): Promise<void> {
    for (const master of main.masters) {
      const node = await main.nodeClient(master);
      await node.sendCommand(['FUNCTION', 'FLUSH']);
      await node.sendCommand(['SCRIPT', 'FLUSH']);
    }
  }

  it('a lost answer meets the write that runs, also on a node that lacked the library first', async () => {
    await flushScripts();
    const faults = new DriverFaults();
    const prefix = freshPrefix();
    const store = new RedisTaskStore({ client: faultyConnection(redisConnection(main), faults), prefix });
    try {
      faults.arm('lose-answer');
      // FCALL answers "Function not found" (nothing ran), the store loads the library on that node and calls
      // again, and that answer is lost.
      await expect(store.tryLead('retention', 'r1', 60_000)).rejects.toThrow(/Connection terminated/);
      expect(faults.pending).toBe(0);
      expect(await store.tryLead('retention', 'r1', 60_000)).toBe(true);
      expect(await store.tryLead('retention', 'r2', 60_000)).toBe(false);
    } finally {
      await store.close();
      await dropPrefix(main, prefix);
    }
  });

  it('runs through an ioredis Cluster too, loading its library on the nodes that own the scopes', async () => {
    await flushScripts();
    const io = new IoredisCluster(own.ports.map((port) => ({ host: '127.0.0.1', port })));
    io.on('error', () => undefined);
    const prefix = freshPrefix();
    const store = new RedisTaskStore({ client: io, prefix });
    try {
      for (const scope of [ALICE, BOB, OTHER_TENANT]) {
        const task = makeTask('t1');
        expect((await store.createTask(scope, { task })).outcome).toBe('created');
        const done = withState(task, 'TASK_STATE_COMPLETED');
        const write = { expectFence: 1, task: done, events: [statusEvent(task, 'TASK_STATE_COMPLETED')] };
        expect((await store.commit(scope, 't1', write)).ok).toBe(true);
        expect((await store.listTasks(scope, { pageSize: 10 })).totalSize).toBe(1);
      }
      expect(await store.countLiveKeys()).toBe(0);
    } finally {
      await store.close();
      await io.quit();
      await dropPrefix(main, prefix);
    }
  });

  describeTaskStoreContract(
    'redis cluster',
    redisContractStores(
      () => main,
      () => second,
      (prefix) => dropPrefix(main, prefix),
    ),
  );
});
