/**
 * The contract suite against the shared Redis through ioredis instead of node-redis: the store reads its client
 * by shape (redis-connection.ts, ADR 0116), so either driver can be passed. A fresh key prefix per test.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { describeTaskStoreContract } from './contract.js';
import {
  REDIS_HOST,
  REDIS_PORT,
  connectRedis,
  dropPrefix,
  RUN_PREFIX,
  redisContractStores,
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

  describeTaskStoreContract(
    'redis (ioredis)',
    redisContractStores(
      () => main,
      () => second,
    ),
  );
}
