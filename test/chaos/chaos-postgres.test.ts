/**
 * Chaos on PostgreSQL, a schema per scenario: `serve` processes killed (SIGKILL) at exact points and frozen (SIGSTOP) past
 * their lease, then a keyed retry; every send runs once and its effect happens once (ADR 0041,
 * docs/semantics.md §4). Skips with a notice when PostgreSQL does not answer, fails under CI=true.
 */
import { describe } from 'vitest';
import { dropSchema, freshSchemaUrl, postgresAvailable } from '../processes/postgres-server.js';
import { cliBuilt } from '../processes/serve-process.js';
import { chaosScenarios } from './chaos-scenarios.js';

const pgUp = cliBuilt ? await postgresAvailable() : false;

describe.skipIf(!pgUp)('chaos on PostgreSQL', () => {
  chaosScenarios(() => {
    const { url, schema } = freshSchemaUrl('a2a_chaos');
    return { url, remove: () => dropSchema(schema) };
  });
});
