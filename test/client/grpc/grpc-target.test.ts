/**
 * A card's gRPC URL read as a channel address and its security (ADR 0111): bare `host:port` is TLS unless the
 * transport is told `insecure`, a scheme decides by itself, and what cannot name a channel is refused before
 * anything is sent.
 */
import { describe, expect, it } from 'vitest';
import { grpcTargetOf } from '../../../src/client/grpc/grpc-target.js';
import { ClientError } from '../../../src/client/index.js';

describe('grpcTargetOf (ADR 0111)', () => {
  it.each([
    ['127.0.0.1:50051', false, { address: '127.0.0.1:50051', tls: true }],
    ['127.0.0.1:50051', true, { address: '127.0.0.1:50051', tls: false }],
    ['localhost:7', false, { address: 'localhost:7', tls: true }],
    ['[::1]:5000', true, { address: '[::1]:5000', tls: false }],
    ['http://agent.example:8080', false, { address: 'agent.example:8080', tls: false }],
    ['grpc://agent.example:8080', false, { address: 'agent.example:8080', tls: false }],
    ['https://agent.example', true, { address: 'agent.example:443', tls: true }],
    ['grpcs://agent.example:9/', true, { address: 'agent.example:9', tls: true }],
  ])('%s (insecure: %s)', (url, insecure, want) => {
    expect(grpcTargetOf(url, insecure)).toEqual(want);
  });

  it.each([
    ['agent.example', 'no port'],
    ['ftp://agent.example:21', 'uses ftp'],
    ['http://agent.example:1/a2a', 'path'],
    ['http://user:secret@agent.example:1', 'user info'],
    ['', 'names no host'],
  ])('refuses %j (%s)', (url, words) => {
    let err: unknown;
    try {
      grpcTargetOf(url, false);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ClientError);
    expect((err as ClientError).code).toBe('INVALID_ARGUMENT');
    expect((err as ClientError).message).toContain(words);
    expect((err as ClientError).message).not.toContain('secret');
  });
});
