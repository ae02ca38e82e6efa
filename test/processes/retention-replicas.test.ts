/**
 * Retention on a schedule with two `a2a-once serve` replicas on one PostgreSQL (docs/semantics.md §6, ADR 0035):
 * finished tasks go without anyone running `sweep`, and only the replica holding the leader lease sweeps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropSchema, freshSchemaUrl, postgresAvailable } from './postgres-server.js';
import { cliBuilt, startServe, type ServeProcess } from './serve-process.js';
import { rpc, sendForTask, userMessage } from './wire.js';

const pgUp = cliBuilt ? await postgresAvailable() : false;
if (!cliBuilt)
  console.warn(
    'NOTICE: dist/cli/bin.js is missing (run npm run build); skipping the retention replica test.',
  );

describe.skipIf(!pgUp)('retention led by one of two replicas on one PostgreSQL', () => {
  const { url: storeUrl, schema } = freshSchemaUrl('a2a_retention');
  const replicas: { proc: ServeProcess; runs: () => number }[] = [];

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      const proc = await startServe([
        '--agent',
        'echo',
        '--store',
        storeUrl,
        '--retention-interval',
        '1s',
        '--retain-finished',
        '1ms',
        '--verbose',
      ]);
      let stderr = '';
      proc.child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      const runs = () => stderr.split('\n').filter((l) => l.includes('"message":"retention run"')).length;
      replicas.push({ proc, runs });
    }
  });

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.proc.stop()));
    await dropSchema(schema);
  });

  it('deletes finished tasks sent to either replica, and only one replica runs the sweeps', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const url = replicas[i % 2]!.proc.url;
      ids.push((await sendForTask(url, userMessage(`task ${i}`))).id);
    }
    const gone = async () => {
      let n = 0;
      for (const id of ids) {
        const body = (await rpc(replicas[0]!.proc.url, 'GetTask', { id })) as { error?: { code: number } };
        if (body.error?.code === -32001) n++;
      }
      return n;
    };
    await expect.poll(gone, { timeout: 10_000, interval: 250 }).toBe(ids.length);
    const runs = replicas.map((r) => r.runs());
    // Exactly one replica swept: the other asked for the lease on every tick and was refused.
    expect(runs.filter((n) => n > 0)).toHaveLength(1);
  });
});
