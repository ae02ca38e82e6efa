import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bookAcrossReplicas, startReplicas } from '../../examples/two-replicas-postgres.js';
import { dropSchema, freshSchemaUrl, postgresAvailable } from '../processes/postgres-server.js';

// Two replicas need a real server: PGlite lives inside one process. Skipped with a notice without one (and a
// failure under CI=true).
const pgUp = await postgresAvailable();

describe.skipIf(!pgUp)('example: two replicas on PostgreSQL', () => {
  const { url, schema } = freshSchemaUrl('a2a_example_replicas');
  let replicas: Awaited<ReturnType<typeof startReplicas>>;
  beforeAll(async () => {
    replicas = await startReplicas(url);
  });
  afterAll(async () => {
    await replicas?.close();
    await dropSchema(schema);
  });

  it('a keyed send to A retried on B is one task, run once', async () => {
    const [onA, onB] = await bookAcrossReplicas(replicas.urls, '77');
    expect(onB).toBe(onA);
    expect(replicas.runs()).toBe(1);
  });
});
