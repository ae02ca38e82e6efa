import { describe, expect, it } from 'vitest';
import type { Part } from '../../../src/protocol/model.js';
import {
  countEffects,
  createAgent,
  createTckAgent,
  EffectsLog,
  TCK_FILE_TEXT,
  tckCard,
  tckScenarioFor,
} from '../../../src/cli/agents/index.js';
import { localCallContext } from '../../../src/server/call-context.js';
import { handlerFor, sendForTask, tempLogPath, texts, userMessage } from './harness.js';

const handler = handlerFor(createTckAgent());

/** The single part of the single artifact of a completed task. */
async function onlyArtifactPart(messageId: string): Promise<Part> {
  const task = await sendForTask(handler, userMessage(messageId, 'hi'));
  expect(task.status.state).toBe('TASK_STATE_COMPLETED');
  expect(task.artifacts).toHaveLength(1);
  expect(task.artifacts?.[0]?.parts).toHaveLength(1);
  return task.artifacts![0]!.parts[0]!;
}

describe('tck agent (blocking sends)', () => {
  it('tck-complete-task completes with "Hello from TCK"', async () => {
    const task = await sendForTask(handler, userMessage('tck-complete-task-001', 'hi'));
    expect(task.status.state).toBe('TASK_STATE_COMPLETED');
    expect(task.status.message).toMatchObject({
      role: 'ROLE_AGENT',
      taskId: task.id,
      contextId: task.contextId,
    });
    expect(texts(task.status.message)).toEqual(['Hello from TCK']);
  });

  it('tck-input-required waits for input; a tck-complete-task follow-up completes the same task', async () => {
    const path = tempLogPath();
    const h = handlerFor(createTckAgent({ effectsLog: new EffectsLog(path) }));
    const first = await sendForTask(h, userMessage('tck-input-required-001', 'start'));
    expect(first.status.state).toBe('TASK_STATE_INPUT_REQUIRED');
    expect(first.status.message?.role).toBe('ROLE_AGENT');
    const next = await sendForTask(h, userMessage('tck-complete-task-002', 'more', { taskId: first.id }));
    expect(next.id).toBe(first.id);
    expect(next.status.state).toBe('TASK_STATE_COMPLETED');
    expect(texts(next.status.message)).toEqual(['Hello from TCK']);
    expect(countEffects(path)).toBe(2);
  });

  it('tck-auth-required goes AUTH_REQUIRED', async () => {
    const task = await sendForTask(handler, userMessage('tck-auth-required-001', 'hi'));
    expect(task.status.state).toBe('TASK_STATE_AUTH_REQUIRED');
    expect(texts(task.status.message)).toEqual(['Authentication required']);
  });

  it('tck-message-response answers with a bare message', async () => {
    const res = await handler.sendMessage(
      { message: userMessage('tck-message-response-001', 'hi') },
      localCallContext(),
    );
    expect(Object.keys(res)).toEqual(['message']);
    if (!('message' in res)) throw new Error('expected a message');
    expect(res.message.role).toBe('ROLE_AGENT');
    expect(res.message.parts).toEqual([{ text: 'Direct message response' }]);
    expect(res.message.taskId).toBeUndefined();
    expect(typeof res.message.contextId).toBe('string');
  });

  it('tck-reject-task goes REJECTED', async () => {
    const task = await sendForTask(handler, userMessage('tck-reject-task-001', 'hi'));
    expect(task.status.state).toBe('TASK_STATE_REJECTED');
    expect(task.artifacts).toBeUndefined();
  });

  it('tck-artifact-text adds "Generated text content" and completes', async () => {
    expect(await onlyArtifactPart('tck-artifact-text-001')).toEqual({ text: 'Generated text content' });
  });

  it('tck-artifact-file adds a raw part output.txt (text/plain, base64)', async () => {
    const part = await onlyArtifactPart('tck-artifact-file-001');
    expect(part).toEqual({
      raw: expect.any(String) as unknown,
      filename: 'output.txt',
      mediaType: 'text/plain',
    });
    if (!('raw' in part)) throw new Error('expected a raw part');
    expect(Buffer.from(part.raw, 'base64').toString('utf8')).toBe(TCK_FILE_TEXT);
    expect(part.raw).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
  });

  it('tck-artifact-file-url (the longer prefix) adds a url part, not a raw one', async () => {
    expect(await onlyArtifactPart('tck-artifact-file-url-001')).toEqual({
      url: 'https://example.com/output.txt',
      filename: 'output.txt',
      mediaType: 'text/plain',
    });
  });

  it('tck-artifact-data adds the data part {"key":"value","count":42}', async () => {
    expect(await onlyArtifactPart('tck-artifact-data-001')).toEqual({ data: { key: 'value', count: 42 } });
  });

  it('completes any other message with a greeting', async () => {
    for (const id of ['plain-message', 'tck-unknown-001']) {
      const task = await sendForTask(handler, userMessage(id, 'hi'));
      expect(task.status.state).toBe('TASK_STATE_COMPLETED');
      expect(texts(task.status.message)).toEqual(['Hello from TCK agent']);
    }
  });

  it('routes on the longest matching prefix', () => {
    expect(tckScenarioFor('tck-artifact-file-url-9')?.prefix).toBe('tck-artifact-file-url');
    expect(tckScenarioFor('tck-artifact-file-9')?.prefix).toBe('tck-artifact-file');
    expect(tckScenarioFor('tck-stream-artifact-file-9')?.prefix).toBe('tck-stream-artifact-file');
    expect(tckScenarioFor('tck-stream-artifact-chunked')?.prefix).toBe('tck-stream-artifact-chunked');
    expect(tckScenarioFor('nothing')).toBeUndefined();
  });
});

describe('tck agent cards', () => {
  it('declares streaming and the extended card; push notifications only when delivered', () => {
    expect(tckCard.capabilities).toEqual({
      streaming: true,
      pushNotifications: false,
      extendedAgentCard: true,
    });
    expect(createAgent('tck').card).toBe(tckCard);
  });

  it('serves an extended card with one more skill than the public card', async () => {
    const agent = createAgent('tck');
    const h = handlerFor(agent);
    const ext = await h.getExtendedAgentCard({}, localCallContext());
    expect(ext).toBe(agent.extendedCard);
    const publicIds = (tckCard.skills ?? []).map((s) => s.id);
    expect(ext.skills.map((s) => s.id)).toEqual([...publicIds, 'tck-extended']);
    expect(ext.capabilities.extendedAgentCard).toBe(true);
    expect(h.agentCard.capabilities.pushNotifications).toBe(false);
  });
});
