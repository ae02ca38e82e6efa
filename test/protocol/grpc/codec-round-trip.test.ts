/**
 * ProtoJSON → protobuf binary → ProtoJSON is the identity for every message the gRPC binding carries
 * (ADR 0105): tasks, messages, stream events, push configs, agent cards and the requests.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { protoRoundTrip } from '../../../src/protocol/grpc/index.js';
import {
  arbAgentCard,
  arbListTasksResponse,
  arbMessage,
  arbSendMessageRequest,
  arbSendMessageResponse,
  arbStreamResponse,
  arbTask,
  arbTaskPushNotificationConfig,
} from '../arbitraries.js';

const cases: [string, fc.Arbitrary<unknown>][] = [
  ['Task', arbTask],
  ['Message', arbMessage],
  ['StreamResponse', arbStreamResponse],
  ['SendMessageResponse', arbSendMessageResponse],
  ['TaskPushNotificationConfig', arbTaskPushNotificationConfig],
  ['AgentCard', arbAgentCard],
  ['SendMessageRequest', arbSendMessageRequest],
  ['ListTasksResponse', arbListTasksResponse],
];

/**
 * The canonical form of a value: an empty map is absent (protobuf cannot tell them apart, and our model
 * has the only empty-able maps, the OAuth flows' `scopes`, optional).
 */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (k === 'scopes' && typeof v === 'object' && v !== null && Object.keys(v).length === 0) continue;
    out[k] = k === 'metadata' || k === 'data' || k === 'params' || k === 'header' ? v : canonical(v);
  }
  return out;
}

describe('protobuf codec round trip', () => {
  for (const [name, arb] of cases) {
    it(`${name}: ProtoJSON → binary → ProtoJSON is the identity`, () => {
      fc.assert(
        fc.property(arb, (value) => {
          expect(protoRoundTrip(name, value)).toEqual(canonical(value));
        }),
        { numRuns: 150 },
      );
    });
  }
});
