import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fastSendMessageRequest } from '../../src/protocol/fast-send-request.js';
import { SendMessageRequestSchema } from '../../src/protocol/schemas/index.js';
import { toWireSendMessageRequest } from '../../src/protocol/wire-write.js';
import { arbSendMessageRequest } from './arbitraries.js';

describe('fastSendMessageRequest', () => {
  it('whatever it accepts, the full schema accepts and reads identically', () => {
    let accepted = 0;
    fc.assert(
      fc.property(arbSendMessageRequest, (req) => {
        const wire = JSON.parse(JSON.stringify(toWireSendMessageRequest(req))) as unknown;
        const fast = fastSendMessageRequest(wire);
        if (fast === undefined) return;
        accepted++;
        expect(SendMessageRequestSchema.parse(wire)).toEqual(fast);
      }),
      { numRuns: 500 },
    );
    expect(accepted).toBeGreaterThan(50); // the fast path is actually taken for canonical input
  });

  it('declines anything the lenient reader must handle or refuse', () => {
    const ok = { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } };
    expect(fastSendMessageRequest(ok)).toBe(ok);
    const declined: unknown[] = [
      { message: { message_id: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }, // snake_case
      { message: { messageId: 'm', role: 1, parts: [{ text: 'hi' }] } }, // integer enum
      { message: { messageId: 'm', role: 'ROLE_USER', parts: [] } }, // no parts
      { message: { messageId: '', role: 'ROLE_USER', parts: [{ text: 'hi' }] } }, // empty id
      { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi', url: 'x' }] } }, // two members
      { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ raw: 'aGk=' }] } }, // raw: normalised by zod
      { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }], contextId: null } }, // null
      { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }], extra: 1 } }, // unknown field
      { ...ok, configuration: { historyLength: -1 } },
      { ...ok, configuration: { taskPushNotificationConfig: { url: 'https://x' } } },
      { ...ok, tenant: 5 },
    ];
    for (const d of declined) expect(fastSendMessageRequest(d)).toBeUndefined();
  });
});
