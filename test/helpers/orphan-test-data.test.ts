/**
 * The run's clean-up of orphaned test data (test/orphan-test-data.ts): a PostgreSQL schema or a Redis key prefix
 * named for a process that is gone is dropped, one of a live process (this worker, or another run's) is kept.
 */
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropOrphanRedisKeys, dropOrphanSchemas } from '../orphan-test-data.js';
import { connectRedis, REDIS_URL } from '../store-contract/redis-backend.js';
import { choosePgLane, pgServerUrl } from '../store-contract/pg-backend.js';

let url: string | undefined;
let client: pg.Client | undefined;

beforeAll(async () => {
  const lane = await choosePgLane();
  if (lane.kind !== 'server') {
    if (process.env.CI === 'true') throw new Error('CI=true and no PostgreSQL server: refusing to skip');
    console.warn('[a2a-once] NOTICE: the orphaned-schema test is skipped: no PostgreSQL server');
    return;
  }
  url = pgServerUrl(lane.user);
  client = new pg.Client({ connectionString: url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
});

describe('dropOrphanSchemas', () => {
  it('drops the schema of a process that is gone and keeps a live one’s', async (ctx) => {
    if (!client || !url) return ctx.skip();
    // A process that has exited: its pid names no live process (for as long as it is not reused).
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    const orphan = `a2a_test_${gone}_orphan${Date.now().toString(36)}`;
    const mine = `a2a_test_${process.pid}_mine${Date.now().toString(36)}`;
    await client.query(`CREATE SCHEMA "${orphan}"`);
    await client.query(`CREATE SCHEMA "${mine}"`);
    try {
      expect(await dropOrphanSchemas(url)).toBeGreaterThanOrEqual(1);
      const { rows } = await client.query<{ nspname: string }>(
        'SELECT nspname FROM pg_namespace WHERE nspname = ANY($1)',
        [[orphan, mine]],
      );
      expect(rows.map((r) => r.nspname)).toEqual([mine]);
    } finally {
      await client.query(`DROP SCHEMA IF EXISTS "${orphan}"`);
      await client.query(`DROP SCHEMA IF EXISTS "${mine}"`);
    }
  });

  it('never throws: an unreachable server drops nothing', async () => {
    expect(await dropOrphanSchemas('postgres://nobody@127.0.0.1:1/none')).toBe(0);
    expect(await dropOrphanRedisKeys('redis://127.0.0.1:1')).toBe(0);
  });

  it('deletes the Redis keys of a prefix whose process is gone and keeps a live one’s', async () => {
    const redis = await connectRedis().catch(() => undefined);
    if (redis === undefined) {
      if (process.env.CI === 'true') throw new Error('CI=true and no Redis: refusing to skip');
      return;
    }
    try {
      const gone = spawnSync(process.execPath, ['-e', '']).pid;
      const orphan = `a2a-test:${gone}-orphan${Date.now().toString(36)}:1:k`;
      const mine = `a2a-test:${process.pid}-mine${Date.now().toString(36)}:1:k`;
      await redis.set(orphan, 'x');
      await redis.set(mine, 'y');
      expect(await dropOrphanRedisKeys(REDIS_URL)).toBeGreaterThanOrEqual(1);
      expect(await redis.exists(orphan)).toBe(0);
      expect(await redis.get(mine)).toBe('y');
      await redis.del(mine);
    } finally {
      await redis.close();
    }
  });
});
