import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCoordinator, startResearcher, type RunningAgent } from '../../examples/delegating-agent.js';
import { A2AClient } from '../../src/client/index.js';

/** A port nothing listens on now (the kernel's choice, released at once). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

describe('example: an agent that delegates', () => {
  let researcherPort: number;
  let coordinator: RunningAgent;
  let researcher: (RunningAgent & { turns(): number }) | undefined;
  let client: A2AClient;
  beforeAll(async () => {
    researcherPort = await freePort();
    // The coordinator first, while nothing listens on the researcher's port: it starts all the same.
    coordinator = await startCoordinator(`http://127.0.0.1:${researcherPort}`);
    client = await A2AClient.fromCardUrl(coordinator.url);
  });
  afterAll(async () => {
    await coordinator.close();
    await researcher?.close();
  });

  it('a send while the researcher is away fails, saying it could not be reached', async () => {
    const early = await client.send('tide tables', { key: 'research-tide-tables-early' });
    if (!('task' in early)) throw new Error('expected a task');
    expect(early.task.status.state).toBe('TASK_STATE_FAILED');
    const reason = early.task.status.message?.parts[0];
    expect(reason && 'text' in reason ? reason.text : '').toMatch(
      /the child agent could not be reached, so nothing was delegated \(a later turn tries again\)/,
    );
  });

  it('once the researcher is up, the coordinator completes with its finding; a retried send reaches no second child', async () => {
    researcher = await startResearcher(researcherPort);
    const first = await client.send('tide tables', { key: 'research-tide-tables' });
    if (!('task' in first)) throw new Error('expected a task');
    expect(first.task.status.state).toBe('TASK_STATE_COMPLETED');
    const parts = first.task.artifacts?.[0]?.parts ?? [];
    expect(parts[0] && 'text' in parts[0] ? parts[0].text : '').toMatch(/^report from child [0-9a-f-]{36}$/);
    expect(parts[1]).toEqual({ text: 'notes on tide tables' });
    const retry = await client.send('tide tables', { key: 'research-tide-tables' });
    expect('task' in retry && retry.task.id).toBe(first.task.id);
    expect(researcher.turns()).toBe(1);
  });
});
