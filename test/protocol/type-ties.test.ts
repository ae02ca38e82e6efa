import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { Equals, Message, ParamsOf, SendMessageRequest, Task, Ties } from '../../src/protocol/index.js';
import { PARAMS_TIES, TYPE_TIES } from '../../src/protocol/index.js';
import type { MessageSchema, TaskSchema } from '../../src/protocol/index.js';

describe('type ties', () => {
  it('holds for every hand-written type and every method (checked by tsc; listed here so a gap shows)', () => {
    expect(Object.values(TYPE_TIES).every((tie) => tie)).toBe(true);
    expect(Object.keys(TYPE_TIES)).toHaveLength(41);
    expect(Object.values(PARAMS_TIES).every((tie) => tie)).toBe(true);
  });

  it('fails to compile for a mismatch, so the check can fail', () => {
    // @ts-expect-error a Task schema does not produce a Message
    const wrong: Ties<typeof TaskSchema, Message> = true;
    // @ts-expect-error an optional field is not a required one
    const optional: Equals<{ a?: string }, { a: string }> = true;
    const right: Ties<typeof MessageSchema, Message> = true;
    const params: Equals<ParamsOf<'SendStreamingMessage'>, SendMessageRequest> = true;
    const output: Equals<z.output<typeof TaskSchema>, Task> = true;
    expect([wrong, optional, right, params, output]).toEqual([true, true, true, true, true]);
  });
});
