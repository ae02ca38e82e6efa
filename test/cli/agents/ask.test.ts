import { describe, expect, it } from 'vitest';
import {
  ASK_QUESTION,
  askCard,
  createAskAgent,
  EffectsLog,
  readEffects,
} from '../../../src/cli/agents/index.js';
import {
  eventKinds,
  handlerFor,
  sendForTask,
  streamAll,
  tempLogPath,
  texts,
  userMessage,
} from './harness.js';

describe('ask agent', () => {
  it('asks a question, then completes with an artifact combining request and answer', async () => {
    const path = tempLogPath();
    const handler = handlerFor(createAskAgent({ effectsLog: new EffectsLog(path) }));
    const first = await sendForTask(handler, userMessage('ask-1', 'write a haiku about rivers'));
    expect(first.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(texts(first.status.message)).toEqual([ASK_QUESTION]);
    expect(first.artifacts).toBeUndefined();

    const second = await sendForTask(handler, userMessage('ask-2', 'Flow', { taskId: first.id }));
    expect(second.id).toBe(first.id);
    expect(second.status.state).toBe('TASK_STATE_COMPLETED');
    expect(second.artifacts).toHaveLength(1);
    const [text] = texts(second.artifacts?.[0]);
    expect(text).toContain('write a haiku about rivers');
    expect(text).toContain('Flow');

    expect(readEffects(path)).toEqual([
      { taskId: first.id, messageId: 'ask-1', text: 'write a haiku about rivers' },
      { taskId: first.id, messageId: 'ask-2', text: 'Flow' },
    ]);
  });

  it('ends the first stream at INPUT_REQUIRED and streams the second turn to COMPLETED', async () => {
    const handler = handlerFor(createAskAgent());
    const one = await streamAll(handler, userMessage('ask-s1', 'summarise'));
    expect(eventKinds(one)).toEqual(['task', 'status:TASK_STATE_INPUT_REQUIRED']);
    const head = one[0];
    if (!head || !('task' in head)) throw new Error('expected the task first');

    const two = await streamAll(handler, userMessage('ask-s2', 'Summary', { taskId: head.task.id }));
    expect(eventKinds(two)).toEqual([
      'task',
      'status:TASK_STATE_WORKING',
      'artifact',
      'status:TASK_STATE_COMPLETED',
    ]);
    const art = two.find((ev) => 'artifactUpdate' in ev);
    if (!art || !('artifactUpdate' in art)) throw new Error('expected an artifact');
    const [text] = texts(art.artifactUpdate.artifact);
    expect(text).toContain('summarise');
    expect(text).toContain('Summary');
  });

  it('declares streaming', () => {
    expect(askCard.capabilities?.streaming).toBe(true);
  });
});
