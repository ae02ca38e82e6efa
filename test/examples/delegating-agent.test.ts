import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDelegationPair, type DelegationPair } from '../../examples/delegating-agent.js';
import { A2AClient } from '../../src/client/index.js';

describe('example: an agent that delegates', () => {
  let pair: DelegationPair;
  beforeAll(async () => {
    pair = await startDelegationPair();
  });
  afterAll(async () => {
    await pair.close();
  });

  it('the coordinator completes with its child’s finding; a retried send reaches no second child', async () => {
    const client = await A2AClient.fromCardUrl(pair.url);
    const first = await client.send('tide tables', { key: 'research-tide-tables' });
    if (!('task' in first)) throw new Error('expected a task');
    expect(first.task.status.state).toBe('TASK_STATE_COMPLETED');
    const parts = first.task.artifacts?.[0]?.parts ?? [];
    expect(parts[0] && 'text' in parts[0] ? parts[0].text : '').toMatch(/^report from child [0-9a-f-]{36}$/);
    expect(parts[1]).toEqual({ text: 'notes on tide tables' });
    const retry = await client.send('tide tables', { key: 'research-tide-tables' });
    expect('task' in retry && retry.task.id).toBe(first.task.id);
    expect(pair.researcherTurns()).toBe(1);
  });
});
