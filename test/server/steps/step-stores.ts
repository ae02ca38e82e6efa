/**
 * Every store the step tests run on: memory, SQLite, PostgreSQL (the real server, PGlite where none answers)
 * and Redis (the real server; skipped with a notice where none answers, failed instead under CI=true).
 */
import { afterEach } from 'vitest';
import { ManualClock } from '../../../src/store/clock.js';
import { RedisTaskStore } from '../../../src/store/redis/index.js';
import {
  connectRedis,
  dropPrefix,
  freshPrefix,
  redisLaneOrSkip,
} from '../../store-contract/redis-backend.js';
import { openStoreUnderTest, STORE_KINDS, type StoreUnderTest } from '../retention/stores.js';

const redis = await redisLaneOrSkip('Redis durable-step tests');

/** The kinds of store the tests run on here. */
export const STEP_STORE_KINDS = [...STORE_KINDS, ...(redis ? (['redis'] as const) : [])];
export type StepStoreKind = (typeof STEP_STORE_KINDS)[number];

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A fresh store of `kind`, its clock and replicas on the same data, all closed after the test. */
export async function stepStore(kind: StepStoreKind): Promise<StoreUnderTest> {
  if (kind !== 'redis') {
    const s = await openStoreUnderTest(kind);
    cleanups.push(() => s.cleanup());
    return s;
  }
  const client = await connectRedis();
  const prefix = freshPrefix();
  const clock = new ManualClock();
  const opened: RedisTaskStore[] = [];
  const open = (): RedisTaskStore => {
    const store = new RedisTaskStore({ client, prefix, clock, pollIntervalMs: 50 });
    opened.push(store);
    return store;
  };
  const store = open();
  const cleanup = async () => {
    for (const s of opened) await s.close();
    await dropPrefix(client, prefix);
    await client.close();
  };
  cleanups.push(cleanup);
  return { store, clock, replica: () => Promise.resolve(open()), cleanup: () => Promise.resolve() };
}
