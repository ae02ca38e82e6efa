/**
 * Two `a2a-once serve` processes on one Redis Cluster (three nodes the test starts itself,
 * test/store/redis/redis-server.ts), opened from `redis-cluster://HOST:PORT,...`: 200 racing identical keyed
 * sends split across both replicas run once, and a retry on one replica replays the task the other created. The
 * cluster persists nothing (the test's own, thrown away after), hence --redis-allow-volatile.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { redisServerInstalled, startOwnCluster, type OwnCluster } from '../store/redis/redis-server.js';
import {
  lostAttemptReplaysOnTheOther,
  racingKeyedSendsRunOnce,
  startRedisReplicas,
  type RedisReplicas,
} from './redis-replicas.js';
import { cliBuilt } from './serve-process.js';

describe.skipIf(!cliBuilt || !redisServerInstalled)('two replicas on one Redis Cluster', () => {
  let cluster: OwnCluster;
  let replicas: RedisReplicas;

  beforeAll(async () => {
    cluster = await startOwnCluster();
    const store = `redis-cluster://${cluster.ports.map((p) => `127.0.0.1:${p}`).join(',')}`;
    replicas = await startRedisReplicas('redis-cluster-replicas', store, 300, true);
  }, 60_000);
  afterAll(async () => {
    await replicas?.stop();
    await cluster?.dispose();
  });

  it('runs 200 concurrent identical keyed sends split across both replicas once', async () => {
    await racingKeyedSendsRunOnce(replicas);
  }, 60_000);

  it('replays on replica B the task a lost first attempt created on replica A', async () => {
    await lostAttemptReplaysOnTheOther(replicas);
  }, 30_000);
});
