/**
 * Runs once before the test files (vitest `globalSetup`): prints which PostgreSQL the PostgreSQL lane runs on, in
 * one line at the top of every run, so a reader of the output knows whether the store tests met a real server
 * (true concurrency, separate connections) or PGlite (one in-process connection: races serialised), and the
 * multi-process tests, which need a server, are skipped. The choice itself is made where the tests open their
 * stores (`store-contract/pg-backend.ts`), by the same probe. On a real server it also drops the test schemas that
 * processes now gone left behind, before the run and after it (orphan-schemas.ts).
 */
import { dropOrphanSchemas } from './orphan-schemas.js';
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
  if (lane.kind !== 'server') return undefined;
  const url = pgServerUrl(lane.user);
  const before = await dropOrphanSchemas(url);
  if (before > 0) console.log(`[a2a-once] dropped ${before} test schema(s) left by earlier runs`);
  return async () => {
    await dropOrphanSchemas(url);
  };
}
