/**
 * Chaos on Redis, a key prefix per scenario on a Redis server of the test's own with AOF (`appendfsync always`,
 * so `serve` opens it without `--redis-allow-volatile`): `serve` processes killed (SIGKILL) at exact points and
 * frozen (SIGSTOP) past their lease, then a keyed retry; every send runs once and its effect happens once, as on
 * SQLite and PostgreSQL (ADR 0041, docs/semantics.md §4). Skips where redis-server is not installed.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe } from 'vitest';
import { cliBuilt } from '../processes/serve-process.js';
import { redisServerInstalled, startOwnRedis } from '../store/redis/redis-server.js';
import { chaosScenarios } from './chaos-scenarios.js';

const redis = cliBuilt && redisServerInstalled ? await startOwnRedis('always') : undefined;
afterAll(async () => {
  await redis?.dispose();
});

describe.skipIf(redis === undefined)('chaos on Redis', () => {
  chaosScenarios(() => ({
    url: `${redis!.url}/0?prefix=chaos-${randomBytes(4).toString('hex')}:`,
    // The server and its data go with the file's afterAll.
    remove: async () => {},
  }));
});
