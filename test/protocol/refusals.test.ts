import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  A2AError,
  METHODS,
  PARAMS_SCHEMAS,
  StreamResponseSchema,
  parseAgentCard,
  parseParams,
  parseWith,
  safeParseWith,
} from '../../src/protocol/index.js';
import type { A2AMethod } from '../../src/protocol/index.js';

const message = { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] };

/** Runs `fn`, expects an A2AError with `code`, and returns its message. */
function refusal(fn: () => unknown, code = -32602): string {
  try {
    fn();
  } catch (err) {
    expect(err instanceof A2AError).toBe(true);
    expect((err as A2AError).code).toBe(code);
    return (err as A2AError).message;
  }
  throw new Error('expected a refusal');
}

function send(overrides: Record<string, unknown>): () => unknown {
  return () => parseParams('SendMessage', { message: { ...message, ...overrides } });
}

describe('Part oneof', () => {
  it('refuses a part with two members, naming the part', () => {
    expect(refusal(send({ parts: [{ text: 'a' }, { text: 'b', raw: 'AA==' }] }))).toBe(
      'Invalid parameters: message.parts[1]: a part must have exactly one of text, raw, url, data (found text, raw)',
    );
  });

  it('refuses a part with no member', () => {
    expect(refusal(send({ parts: [{ mediaType: 'text/plain' }] }))).toContain(
      'message.parts[0]: a part must have exactly one',
    );
  });

  it('refuses raw that is not base64 and a member of the wrong type', () => {
    expect(refusal(send({ parts: [{ raw: 'not base64!' }] }))).toContain(
      'message.parts[0].raw: expected base64',
    );
    expect(refusal(send({ parts: [{ text: 7 }] }))).toContain(
      'message.parts[0].text: expected string, got number',
    );
  });
});

describe('Message', () => {
  it('refuses a message without parts or with an empty parts array', () => {
    expect(refusal(send({ parts: [] }))).toBe(
      'Invalid parameters: message.parts: at least one part is required',
    );
    expect(refusal(send({ parts: undefined }))).toBe('Invalid parameters: message.parts: is required');
  });

  it('refuses a message without a messageId, or with an empty one', () => {
    expect(refusal(send({ messageId: undefined }))).toBe(
      'Invalid parameters: message.messageId: is required',
    );
    expect(refusal(send({ messageId: '' }))).toContain('message.messageId: must be a non-empty string');
  });

  it('refuses bad and unspecified roles', () => {
    expect(refusal(send({ role: 'user' }))).toContain(
      'message.role: expected one of ROLE_UNSPECIFIED, ROLE_USER, ROLE_AGENT, got "user"',
    );
    expect(refusal(send({ role: 'ROLE_UNSPECIFIED' }))).toContain(
      'message.role: must be ROLE_USER or ROLE_AGENT',
    );
    expect(refusal(send({ role: 0 }))).toContain('message.role: must be ROLE_USER or ROLE_AGENT');
    expect(refusal(send({ role: 9 }))).toContain('message.role: expected one of');
  });

  it('refuses a missing message and reports several fields at once', () => {
    expect(refusal(() => parseParams('SendMessage', {}))).toBe('Invalid parameters: message: is required');
    const text = refusal(() => parseParams('SendMessage', { message: { role: 'x', parts: [] } }));
    expect(text).toContain('message.messageId');
    expect(text).toContain('message.role');
    expect(text).toContain('message.parts');
  });

  it('caps the number of violations in one message', () => {
    const parts = Array.from({ length: 50 }, () => ({}));
    expect(refusal(send({ parts }))).toMatch(/; and 45 more$/);
  });
});

describe('ListTasks and history validation (A2A v1.0)', () => {
  it.each([0, 101, 1.5, -1, '0', 'ten'])('refuses pageSize %j', (pageSize) => {
    expect(refusal(() => parseParams('ListTasks', { pageSize }))).toContain('pageSize:');
  });

  it('accepts every pageSize in 1..100', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100 }), (pageSize) => {
        expect(parseParams('ListTasks', { pageSize }).pageSize).toBe(pageSize);
      }),
    );
  });

  it('refuses a negative historyLength wherever it appears', () => {
    expect(refusal(() => parseParams('ListTasks', { historyLength: -1 }))).toContain(
      'historyLength: must be an integer >= 0',
    );
    expect(refusal(() => parseParams('GetTask', { id: 't', historyLength: -3 }))).toContain('historyLength');
    expect(
      refusal(() => parseParams('SendMessage', { message, configuration: { historyLength: -1 } })),
    ).toContain('configuration.historyLength');
  });

  it('refuses bad status strings and timestamps', () => {
    expect(refusal(() => parseParams('ListTasks', { status: 'WORKING' }))).toContain(
      'status: expected one of TASK_STATE_',
    );
    expect(refusal(() => parseParams('ListTasks', { status: 42 }))).toContain('status: expected one of');
    expect(refusal(() => parseParams('ListTasks', { statusTimestampAfter: 'yesterday' }))).toContain(
      'statusTimestampAfter: expected an RFC 3339 timestamp',
    );
  });
});

describe('params shape', () => {
  it.each([null, 'x', 3, [], undefined])('refuses non-object params %j and says so', (raw) => {
    expect(refusal(() => parseParams('GetTask', raw))).toMatch(
      /^Invalid parameters: params must be a JSON object, got /,
    );
  });

  it('refuses missing required ids', () => {
    expect(refusal(() => parseParams('GetTask', {}))).toBe('Invalid parameters: id: is required');
    expect(refusal(() => parseParams('GetTaskPushNotificationConfig', { id: 'c' }))).toContain(
      'taskId: is required',
    );
    expect(refusal(() => parseParams('CreateTaskPushNotificationConfig', { taskId: 't' }))).toContain(
      'url: is required',
    );
  });

  it('refuses an unknown method with MethodNotFoundError', () => {
    expect(refusal(() => parseParams('Nope' as A2AMethod, {}), -32601)).toContain('Nope');
  });

  it('has a schema for every method', () => {
    expect(Object.keys(PARAMS_SCHEMAS).sort()).toEqual([...METHODS].sort());
  });

  it('puts the invalid field paths into ErrorInfo metadata', () => {
    try {
      parseParams('SendMessage', { message: { ...message, parts: [] } });
    } catch (err) {
      expect((err as A2AError).toErrorInfo().metadata).toEqual({ fields: 'message.parts' });
    }
    expect.assertions(1);
  });
});

describe('oneof results', () => {
  it('refuses a StreamResponse with two members or none', () => {
    const task = { id: 't', status: { state: 'TASK_STATE_WORKING' } };
    expect(refusal(() => parseWith(StreamResponseSchema, { task, message }, 'event'))).toContain(
      'exactly one of task, message, statusUpdate, artifactUpdate (found task, message)',
    );
    expect(refusal(() => parseWith(StreamResponseSchema, { kind: 'task' }, 'event'))).toContain(
      '(found none)',
    );
  });

  it('safeParseWith reports violations without throwing', () => {
    const result = safeParseWith(
      StreamResponseSchema,
      { statusUpdate: { taskId: 't', status: { state: 1 } } },
      'event',
    );
    expect(result.success).toBe(false);
    if (!result.success)
      expect(result.violations).toEqual([{ field: 'statusUpdate.contextId', description: 'is required' }]);
  });
});

describe('agent cards (client side)', () => {
  it('throws InvalidAgentResponseError naming the field', () => {
    const text = refusal(
      () => parseAgentCard({ name: 'n', description: 'd', version: '1', supportedInterfaces: [] }),
      -32006,
    );
    expect(text).toBe('Invalid agent card: supportedInterfaces: at least one interface is required');
    expect(refusal(() => parseAgentCard('nope'), -32006)).toContain('Invalid agent card');
  });

  it('refuses a security scheme with two members', () => {
    const text = refusal(
      () =>
        parseAgentCard({
          name: 'n',
          description: 'd',
          version: '1',
          supportedInterfaces: [{ url: 'u', protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
          securitySchemes: { s: { mtlsSecurityScheme: {}, httpAuthSecurityScheme: { scheme: 'Bearer' } } },
        }),
      -32006,
    );
    expect(text).toContain('securitySchemes.s: must have exactly one security scheme member');
  });

  // zod's record dropped a "__proto__" key in silence (found by the round-trip property test): the card parsed,
  // one member short. Every map of the card refuses the key instead, naming where it was.
  describe('a "__proto__" map key is refused, never dropped', () => {
    const card = (extra: string): unknown =>
      JSON.parse(`{"name": "n", "description": "d", "version": "1",
        "supportedInterfaces": [{"url": "u", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}], ${extra}}`);
    it.each([
      [
        'OAuth scopes',
        `"securitySchemes": {"oidc": {"oauth2SecurityScheme": {"flows": {"clientCredentials":
          {"tokenUrl": "http://a.example", "scopes": {"__proto__": "", "read": "r"}}}}}}`,
        'securitySchemes.oidc.oauth2SecurityScheme.flows.clientCredentials.scopes.__proto__',
      ],
      [
        'security schemes',
        `"securitySchemes": {"__proto__": {"mtlsSecurityScheme": {}}, "m": {"mtlsSecurityScheme": {}}}`,
        'securitySchemes.__proto__',
      ],
      [
        'a security requirement',
        `"securityRequirements": [{"schemes": {"__proto__": {"list": []}}}]`,
        'securityRequirements[0].schemes.__proto__',
      ],
    ])('in %s', (_where, extra, field) => {
      const text = refusal(() => parseAgentCard(card(extra)), -32006);
      expect(text).toContain(`${field}: a map key may not be "__proto__"`);
    });
  });
});
