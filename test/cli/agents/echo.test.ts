import { describe, expect, it } from 'vitest';
import { localCallContext } from '../../../src/server/call-context.js';
import { createAgent, createEchoAgent, echoCard } from '../../../src/cli/agents/index.js';
import { eventKinds, handlerFor, sendForTask, streamAll, texts, userMessage } from './harness.js';

describe('echo agent', () => {
  it('completes a task with one artifact "echo: <text>"', async () => {
    const handler = handlerFor(createEchoAgent());
    const task = await sendForTask(handler, userMessage('echo-1', 'hello there'));
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.artifacts).toHaveLength(1);
    expect(texts(task.artifacts?.[0])).toEqual(['echo: hello there']);
    expect(task.history?.[0]).toMatchObject({ messageId: 'echo-1', role: 'ROLE_USER' });
    expect(await handler.getTask({ id: task.id }, localCallContext())).toEqual(task);
  });

  it('streams task, WORKING, the artifact, COMPLETED in that order', async () => {
    const handler = handlerFor(createEchoAgent());
    const events = await streamAll(handler, userMessage('echo-2', 'streamed'));
    expect(eventKinds(events)).toEqual([
      'task',
      'status:TASK_STATE_WORKING',
      'artifact',
      'status:TASK_STATE_COMPLETED',
    ]);
    const art = events[2];
    if (!art || !('artifactUpdate' in art)) throw new Error('expected an artifact update');
    expect(texts(art.artifactUpdate.artifact)).toEqual(['echo: streamed']);
    const first = events[0];
    if (!first || !('task' in first)) throw new Error('expected the task first');
    expect(art.artifactUpdate.taskId).toBe(first.task.id);
  });

  it('gives each send its own task', async () => {
    const handler = handlerFor(createEchoAgent());
    const a = await sendForTask(handler, userMessage('echo-3', 'a'));
    const b = await sendForTask(handler, userMessage('echo-4', 'b'));
    expect(a.id).not.toBe(b.id);
    expect(texts(b.artifacts?.[0])).toEqual(['echo: b']);
  });

  it('declares streaming and a described skill, and is what createAgent("echo") builds', () => {
    expect(echoCard.capabilities).toEqual({ streaming: true });
    expect(echoCard.skills?.[0]).toMatchObject({
      id: 'echo',
      tags: expect.arrayContaining(['echo']) as unknown,
    });
    expect(createAgent('echo').card).toBe(echoCard);
  });
});
