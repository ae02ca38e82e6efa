import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countEffects, createEchoAgent, EffectsLog, readEffects } from '../../../src/cli/agents/index.js';
import { handlerFor, sendForTask, tempLogPath, userMessage } from './harness.js';

describe('EffectsLog', () => {
  it('appends one JSON line per record with taskId, messageId and the user text', () => {
    const path = tempLogPath();
    const log = new EffectsLog(path);
    log.record({ taskId: 't1', message: userMessage('m1', 'one'), userText: 'one' });
    log.record({ taskId: 't2', message: userMessage('m2', 'two'), userText: 'two' });
    expect(readFileSync(path, 'utf8')).toBe(
      '{"taskId":"t1","messageId":"m1","text":"one"}\n{"taskId":"t2","messageId":"m2","text":"two"}\n',
    );
    expect(readEffects(path)).toEqual([
      { taskId: 't1', messageId: 'm1', text: 'one' },
      { taskId: 't2', messageId: 'm2', text: 'two' },
    ]);
    expect(countEffects(path)).toBe(2);
  });

  it('reads a missing file as no executions', () => {
    const path = join(tempLogPath(), 'never-written.jsonl');
    expect(readEffects(path)).toEqual([]);
    expect(countEffects(path)).toBe(0);
  });

  it('creates the directory of its file', () => {
    const path = join(tempLogPath(), 'nested', 'dir', 'effects.jsonl');
    new EffectsLog(path).record({ taskId: 't', message: userMessage('m', 'x'), userText: 'x' });
    expect(countEffects(path)).toBe(1);
  });

  it('counts one line per send through the real handler, and none without a log', async () => {
    const path = tempLogPath();
    const handler = handlerFor(createEchoAgent({ effectsLog: new EffectsLog(path) }));
    const a = await sendForTask(handler, userMessage('m-a', 'first'));
    const b = await sendForTask(handler, userMessage('m-b', 'second'));
    expect(readEffects(path)).toEqual([
      { taskId: a.id, messageId: 'm-a', text: 'first' },
      { taskId: b.id, messageId: 'm-b', text: 'second' },
    ]);

    const quiet = handlerFor(createEchoAgent());
    await sendForTask(quiet, userMessage('m-c', 'third'));
    expect(countEffects(path)).toBe(2);
  });
});
