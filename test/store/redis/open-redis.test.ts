/**
 * `openStore('redis://...')` and `serve --store redis://...` (ADR 0117): a Redis that persists nothing (the
 * shared test server: `appendonly no`, no RDB rule) is refused with a message naming the way out, unless told to
 * accept it; a Redis with AOF opens as it is; a URL the store does not understand is refused before connecting.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../../src/store/open-store.js';
import type { RedisPersistence } from '../../../src/store/redis/index.js';
import { CLI_PATH, cliBuilt } from '../../processes/serve-process.js';
import {
  REDIS_URL,
  connectRedis,
  dropPrefix,
  freshPrefix,
  redisLaneOrSkip,
} from '../../store-contract/redis-backend.js';
import { redisServerInstalled, startOwnRedis, type OwnRedis } from './redis-server.js';

const shared = await redisLaneOrSkip('Redis openStore tests');

/** The error `opening` rejects with (it must reject). */
async function refusal(opening: Promise<unknown>): Promise<{ code?: string; message: string }> {
  try {
    await opening;
  } catch (err) {
    return err as { code?: string; message: string };
  }
  throw new Error('the store opened');
}

describe('openStore redis:// refusals before connecting', () => {
  it('refuses a parameter it does not know', async () => {
    expect(await refusal(openStore(`${REDIS_URL}/0?schema=x`))).toMatchObject({ code: 'BAD_STORE_URL' });
    expect((await refusal(openStore(`${REDIS_URL}/0?schema=x`))).message).toMatch(
      /unknown parameter 'schema'/,
    );
  });

  it('says where it could not connect', async () => {
    expect(await refusal(openStore('redis://127.0.0.1:1/0'))).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect((await refusal(openStore('redis://127.0.0.1:1/0'))).message).toMatch(
      /127\.0\.0\.1:1.*is Redis running/,
    );
  });
});

describe.skipIf(!shared)('openStore on the shared Redis, which persists nothing', () => {
  const prefix = freshPrefix();
  afterAll(async () => {
    const c = await connectRedis();
    await dropPrefix(c, prefix);
    await c.close();
  });

  it('is refused, naming --redis-allow-volatile', async () => {
    expect(await refusal(openStore(`${REDIS_URL}/0`))).toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect((await refusal(openStore(`${REDIS_URL}/0`))).message).toMatch(
      /persists nothing.*--redis-allow-volatile/,
    );
  });

  it('opens when told to accept it, keyed under the prefix the URL names', async () => {
    let seen: RedisPersistence | undefined;
    const store = await openStore(`${REDIS_URL}/0?prefix=${encodeURIComponent(prefix)}`, {
      redis: { allowVolatile: true, onPersistence: (p) => (seen = p) },
    });
    try {
      expect(seen).toMatchObject({ aof: false, rdbSave: '', persists: false });
      const task = {
        id: 't1',
        status: { state: 'TASK_STATE_SUBMITTED' as const },
        history: [{ messageId: 'm1', role: 'ROLE_USER' as const, parts: [{ text: 'hi' }] }],
      };
      const scope = { tenant: '', owner: '' };
      expect((await store.createTask(scope, { task })).outcome).toBe('created');
      const c = await connectRedis();
      expect(await c.exists(`${prefix}scopes`)).toBe(1);
      await c.close();
    } finally {
      await store.close();
    }
  });

  it('refuses a prefix that would move the hash tag', async () => {
    expect(
      await refusal(
        openStore(`${REDIS_URL}/0?prefix=${encodeURIComponent('a{b}')}`, { redis: { allowVolatile: true } }),
      ),
    ).toMatchObject({ code: 'BAD_OPTIONS' });
    expect(
      (
        await refusal(
          openStore(`${REDIS_URL}/0?prefix=${encodeURIComponent('a{b}')}`, {
            redis: { allowVolatile: true },
          }),
        )
      ).message,
    ).toMatch(/without braces/);
  });

  it.skipIf(!cliBuilt)('serve refuses it and exits 1 with the reason', () => {
    const r = spawnSync(process.execPath, [CLI_PATH, 'serve', '--port', '0', '--store', `${REDIS_URL}/0`], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/persists nothing/);
    expect(r.stderr).toMatch(/--redis-allow-volatile/);
  });
});

describe.skipIf(!redisServerInstalled)('openStore on a Redis with AOF', () => {
  let own: OwnRedis;
  beforeAll(async () => {
    own = await startOwnRedis('always');
  });
  afterAll(async () => {
    await own.dispose();
  });

  it('opens without being told anything, and reports AOF with its fsync policy', async () => {
    let seen: RedisPersistence | undefined;
    const store = await openStore(`${own.url}/0`, { redis: { onPersistence: (p) => (seen = p) } });
    await store.close();
    expect(seen).toMatchObject({ aof: true, appendfsync: 'always', persists: true });
  });
});
