/**
 * Three `a2a-once serve` replicas on one PostgreSQL schema: a replica lost mid-task (SIGKILL, SIGSTOP) has its
 * task recovered by one of the others, which completes it once (docs/semantics.md §4, ADR 0037).
 */
import { describe } from 'vitest';
import { lostReplicaScenarios } from './lost-replica-scenarios.js';
import { dropSchema, freshSchemaUrl, postgresAvailable } from './postgres-server.js';
import { cliBuilt } from './serve-process.js';

const pgUp = cliBuilt ? await postgresAvailable() : false;

describe.skipIf(!pgUp)('a lost replica on PostgreSQL', () => {
  const { url, schema } = freshSchemaUrl('a2a_lost_replica');
  lostReplicaScenarios(
    () => url,
    () => dropSchema(schema),
  );
});
