/**
 * Runs once before the test files (vitest `globalSetup`): prints which PostgreSQL the PostgreSQL lane runs on, in
 * one line at the top of every run, so a reader of the output knows whether the store tests met a real server
 * (true concurrency, separate connections) or PGlite (one in-process connection: races serialised), and the
 * multi-process tests, which need a server, are skipped. The choice itself is made where the tests open their
 * stores (`store-contract/pg-backend.ts`), by the same probe. On a real server it also drops the test schemas that
 * processes now gone left behind, before the run and after it, and their Redis keys (orphan-test-data.ts).
 */
import { dropOrphanRedisKeys, dropOrphanSchemas } from './orphan-test-data.js';
import { REDIS_URL } from './store-contract/redis-backend.js';
import { PG_SERVER, choosePgLane, pgServerUrl } from './store-contract/pg-backend.js';

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const lane = await choosePgLane();
  let line: string;
  if (lane.kind === 'server') line = `the real server on ${PG_SERVER}, as ${lane.user ?? 'the default user'}`;
  else if (process.env.CI === 'true')
    line = `none: ${lane.why}, and under CI=true the PostgreSQL tests fail rather than fall back to PGlite`;
  else if (process.env.A2A_ONCE_TEST_PG === 'pglite') line = `PGlite, as ${lane.why} asks`;
  else line = `PGlite (${lane.why}); the multi-process PostgreSQL tests, which need a server, are skipped`;
  console.log(`[a2a-once] PostgreSQL lane: ${line}`);
  const url = lane.kind === 'server' ? pgServerUrl(lane.user) : undefined;
  const schemas = url === undefined ? 0 : await dropOrphanSchemas(url);
  const keys = await dropOrphanRedisKeys(REDIS_URL);
  if (schemas + keys > 0)
    console.log(`[a2a-once] dropped what earlier runs left: ${schemas} test schema(s), ${keys} Redis key(s)`);
  return async () => {
    if (url !== undefined) await dropOrphanSchemas(url);
    await dropOrphanRedisKeys(REDIS_URL);
  };
}
