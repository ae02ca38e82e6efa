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

  it('never mixes a v0.3 interface into a card that has a usable 1.x one (ADR 0102)', () => {
    expect(selectInterfaces(c).map((i) => i.protocolVersion)).toEqual(['1.0', '1.0']);
  });

  it('uses the JSON-RPC interfaces at 0.3 to 0.x when no 1.x interface is usable (ADR 0102)', () => {
    const v03 = card([
      { url: 'grpc.example:443', protocolBinding: 'GRPC', protocolVersion: '1.0' },
      { url: '/rest03', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
      { url: '/old', protocolBinding: 'JSONRPC', protocolVersion: '0.2' },
      { url: '/t', protocolBinding: 'JSONRPC', protocolVersion: '0.3', tenant: 't' },
      { url: '/rpc03', protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
      { url: '/rpc09', protocolBinding: 'JSONRPC', protocolVersion: '0.9.1' },
    ]);
    expect(selectInterfaces(v03).map((i) => i.url)).toEqual(['/rpc03', '/rpc09']);
  });

  it('refuses a card with neither, naming what it offers', () => {
    let err: unknown;
    try {
      selectInterfaces(
        card([
          { url: '/x', protocolBinding: 'HTTP+JSON', protocolVersion: '0.3' },
          { url: '/y', protocolBinding: 'GRPC', protocolVersion: '1.0' },
        ]),
      );
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ClientError);
    expect((err as ClientError).code).toBe('NO_USABLE_INTERFACE');
    expect((err as ClientError).message).toContain('card offers: HTTP+JSON 0.3, GRPC 1.0');
  });
});
