/**
 * The contract suite against the shared Redis through ioredis instead of node-redis: the store reads its client
 * by shape (redis-connection.ts, ADR 0116), so either driver can be passed. A fresh key prefix per test.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ManualClock } from '../../src/store/clock.js';
import { RedisTaskStore, redisConnection } from '../../src/store/redis/index.js';
import { describeTaskStoreContract } from './contract.js';
import { DriverFaults } from './fixtures/driver-faults.js';
import {
  REDIS_HOST,
  REDIS_PORT,
  connectRedis,
  dropPrefix,
  RUN_PREFIX,
  faultyConnection,
  freshPrefix,
  redisLaneOrSkip,
} from './redis-backend.js';

const available = await redisLaneOrSkip('Redis store contract tests through ioredis');

function connect(): Redis {
  const client = new Redis({ host: REDIS_HOST, port: REDIS_PORT, lazyConnect: false });
  client.on('error', () => undefined);
  return client;
}

if (!available) {
  describe.skip('TaskStore contract: redis (ioredis)', () => it('needs a Redis server', () => undefined));
} else {
  let main: Redis;
  let second: Redis;
  beforeAll(() => {
    main = connect();
    second = connect();
  });
  afterAll(async () => {
    const c = await connectRedis();
    await dropPrefix(c, RUN_PREFIX);
    await c.close();
    await Promise.all([main.quit(), second.quit()]);
  });

  describeTaskStoreContract('redis (ioredis)', () => {
    const clock = new ManualClock();
    const prefix = freshPrefix();
    const faults = new DriverFaults();
    const store = new RedisTaskStore({
      client: faultyConnection(redisConnection(main), faults),
      prefix,
      clock,
      pollIntervalMs: 50,
    });
    const peers: RedisTaskStore[] = [];
    return Promise.resolve({
      store,
      clock,
      faults,
      openPeer: () => {
        const peer = new RedisTaskStore({ client: second, prefix, clock, pollIntervalMs: 50 });
        peers.push(peer);
        return Promise.resolve(peer);
      },
      cleanup: async () => {
        for (const p of peers) await p.close();
        await store.close();
      },
    });
  });
}
