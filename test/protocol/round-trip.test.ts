import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  AgentCardSchema,
  ListTasksResponseSchema,
  MessageSchema,
  PartSchema,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskPushNotificationConfigSchema,
  TaskSchema,
  parseWith,
  toWireAgentCard,
  toWireListTasksResponse,
  toWireMessage,
  toWirePart,
  toWireSendMessageRequest,
  toWireSendMessageResponse,
  toWireStreamResponse,
  toWireTask,
  toWireTaskPushNotificationConfig,
} from '../../src/protocol/index.js';
import {
  arbAgentCard,
  arbListTasksResponse,
  arbMessage,
  arbPart,
  arbSendMessageRequest,
  arbSendMessageResponse,
  arbStreamResponse,
  arbTask,
  arbTaskPushNotificationConfig,
} from './arbitraries.js';

interface Case<T> {
  name: string;
  arb: fc.Arbitrary<T>;
  schema: z.ZodType<T>;
  write: (value: T) => T;
}

function roundTrip<T>(c: Case<T>): void {
  describe(c.name, () => {
    it('parse(write(x)) deep-equals x', () => {
      fc.assert(
        fc.property(c.arb, (value) => {
          expect(parseWith(c.schema, c.write(value), c.name)).toEqual(value);
        }),
      );
    });

    it('write(parse(write(x))) equals write(x), and survives JSON', () => {
      fc.assert(
        fc.property(c.arb, (value) => {
          const wire = c.write(value);
          const json: unknown = JSON.parse(JSON.stringify(wire));
          expect(json).toEqual(wire);
          expect(c.write(parseWith(c.schema, json, c.name))).toStrictEqual(
            c.write(parseWith(c.schema, wire, c.name)),
          );
          expect(c.write(parseWith(c.schema, json, c.name))).toEqual(wire);
        }),
      );
    });
  });
}

roundTrip({ name: 'Part', arb: arbPart, schema: PartSchema, write: toWirePart });
roundTrip({ name: 'Message', arb: arbMessage, schema: MessageSchema, write: toWireMessage });
roundTrip({ name: 'Task', arb: arbTask, schema: TaskSchema, write: (task) => toWireTask(task) });
roundTrip({
  name: 'StreamResponse',
  arb: arbStreamResponse,
  schema: StreamResponseSchema,
  write: toWireStreamResponse,
});
roundTrip({
  name: 'SendMessageResponse',
  arb: arbSendMessageResponse,
  schema: SendMessageResponseSchema,
  write: toWireSendMessageResponse,
});
roundTrip({
  name: 'SendMessageRequest',
  arb: arbSendMessageRequest,
  schema: SendMessageRequestSchema,
  write: toWireSendMessageRequest,
});
roundTrip({
  name: 'ListTasksResponse',
  arb: arbListTasksResponse,
  schema: ListTasksResponseSchema,
  write: (response) => toWireListTasksResponse(response),
});
roundTrip({
  name: 'TaskPushNotificationConfig',
  arb: arbTaskPushNotificationConfig,
  schema: TaskPushNotificationConfigSchema,
  write: toWireTaskPushNotificationConfig,
});
roundTrip({ name: 'AgentCard', arb: arbAgentCard, schema: AgentCardSchema, write: toWireAgentCard });
