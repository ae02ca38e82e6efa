/**
 * The contract suite against Redis: the shared server on 127.0.0.1:6379, a fresh key prefix per test, all under
 * one prefix for the run, deleted after it, and a second client for the peer, so the races run on separate
 * connections. Skipped with a notice where no Redis answers; failed instead under CI=true (redis-backend.ts).
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { describeTaskStoreContract } from './contract.js';
import {
  connectRedis,
  dropPrefix,
  RUN_PREFIX,
  redisContractStores,
  redisLaneOrSkip,
  type NodeRedis,
} from './redis-backend.js';

const available = await redisLaneOrSkip('Redis store contract tests');

if (!available) {
  describe.skip('TaskStore contract: redis', () => it('needs a Redis server', () => undefined));
} else {
  let main: NodeRedis;
  let second: NodeRedis;
  beforeAll(async () => {
    [main, second] = await Promise.all([connectRedis(), connectRedis()]);
  });
  afterAll(async () => {
    await dropPrefix(main, RUN_PREFIX);
    await Promise.all([main.close(), second.close()]);
  });

  describeTaskStoreContract(
    'redis',
    redisContractStores(
      () => main,
      () => second,
    ),
  );
}
