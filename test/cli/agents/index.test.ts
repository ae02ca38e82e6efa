import { describe, expect, it } from 'vitest';
import { AGENT_NAMES, createAgent, isAgentName } from '../../../src/cli/agents/index.js';
import { handlerFor, sendForTask, userMessage } from './harness.js';

describe('createAgent', () => {
  it('lists the four built-in agents', () => {
    expect(AGENT_NAMES).toEqual(['echo', 'tck', 'ask', 'slow', 'delegating', 'ledger', 'tree']);
    expect(isAgentName('tck')).toBe(true);
    expect(isAgentName('nope')).toBe(false);
  });

  // The ledger agent needs a ledger service to post to: test/cli/agents/ledger.test.ts.
  it.each(AGENT_NAMES.filter((n) => n !== 'ledger'))(
    'builds %s with a complete card that a handler serves',
    async (name) => {
      const agent = createAgent(name, { delayMs: 20 });
      expect(agent.card.name).toBeTruthy();
      expect(agent.card.description).toBeTruthy();
      expect(agent.card.version).toBe('1.0.0');
      expect(agent.card.capabilities?.streaming).toBe(true);
      for (const skill of agent.card.skills ?? []) {
        expect(skill.id && skill.name && skill.description).toBeTruthy();
        expect(skill.tags.length).toBeGreaterThan(0);
        expect(skill.examples?.length).toBeGreaterThan(0);
      }
      expect(agent.card.skills?.length).toBeGreaterThan(0);
      expect(agent.extendedCard !== undefined).toBe(name === 'tck');

      const task = await sendForTask(handlerFor(agent), userMessage(`index-${name}`, 'hello'));
      const expected = name === 'ask' ? 'TASK_STATE_INPUT_REQUIRED' : 'TASK_STATE_COMPLETED';
      expect(task.status.state).toBe(expected);
    },
  );
});
