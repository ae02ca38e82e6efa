/**
 * Interface selection from a card (A2A §8.3.2, A2A v1.0): v1 interfaces we speak, by binding preference.
 */
import { describe, expect, it } from 'vitest';
import { ClientError, selectInterfaces } from '../../../src/client/index.js';
import type { AgentCard } from '../../../src/protocol/agent-card.js';

const card = (interfaces: AgentCard['supportedInterfaces']): AgentCard => ({
  name: 'a',
  description: 'a',
  version: '1',
  supportedInterfaces: interfaces,
  capabilities: {},
  defaultInputModes: [],
  defaultOutputModes: [],
  skills: [],
});

describe('selectInterfaces', () => {
  const c = card([
    { url: 'grpc.example:443', protocolBinding: 'GRPC', protocolVersion: '1.0' },
    { url: '/v03', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    { url: '/rest', protocolBinding: 'HTTP+JSON', protocolVersion: '1.0', tenant: 't1' },
    { url: '/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  ]);

  it('keeps v1 interfaces we speak, ordered by binding preference, ties in card order, URLs resolved', () => {
    expect(
      selectInterfaces(c, ['JSONRPC', 'HTTP+JSON'], 'https://agent.example/.well-known/agent-card.json'),
    ).toEqual([
      { url: 'https://agent.example/rpc', protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      {
        url: 'https://agent.example/rest',
        protocolBinding: 'HTTP+JSON',
        protocolVersion: '1.0',
        tenant: 't1',
      },
    ]);
    expect(selectInterfaces(c, ['HTTP+JSON']).map((i) => i.protocolBinding)).toEqual([
      'HTTP+JSON',
      'JSONRPC',
    ]);
  });

  it('refuses a card with no v1 JSON-RPC or HTTP+JSON interface rather than fall back to v0.3', () => {
    expect(() =>
      selectInterfaces(card([{ url: '/x', protocolBinding: 'JSONRPC', protocolVersion: '0.3' }])),
    ).toThrow(ClientError);
  });
});
