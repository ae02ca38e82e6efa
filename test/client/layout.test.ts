/**
 * The client's layout (ADR 0033): one concept per folder, folders that only import the folders below them, no
 * import cycle, a short longest import chain, the layers of ADR 0001 (the client imports only protocol,
 * idempotency, the telemetry seam of ADR 0091 and the shared delegation layer), and the public entries
 * `a2a-once/client` and `a2a-once/client/grpc` exporting exactly their documented names.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as publicEntry from '../../src/client/index.js';
import * as grpcEntry from '../../src/client/grpc/index.js';
import {
  findCycle,
  folderOf,
  longestChain,
  outsideImports,
  readImportGraph,
} from './harness/import-graph.js';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');
const CLIENT = join(SRC, 'client');

/** Which folders each folder may import (ADR 0033). The top (`.`) may import any. */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  transport: [],
  credentials: ['transport'],
  retry: ['transport'],
  v03: ['transport'],
  connection: ['transport', 'retry', 'credentials', 'v03'],
  intents: [],
  sends: ['transport', 'retry', 'connection', 'intents'],
  streams: ['transport', 'retry', 'connection', 'intents', 'sends'],
  delegation: ['transport', 'retry', 'connection', 'intents', 'sends'],
  // The gRPC binding (ADR 0110): a transport of its own, reached only through `a2a-once/client/grpc`.
  grpc: ['transport'],
};

describe('the layout of src/client (ADR 0033)', () => {
  const graph = readImportGraph(CLIENT);

  it('has only the documented folders, each under 16 files', () => {
    const folders = new Set([...graph.keys()].map(folderOf));
    folders.delete('.');
    expect([...folders].sort()).toEqual(Object.keys(MAY_IMPORT).sort());
    for (const folder of folders) {
      expect(readdirSync(join(CLIENT, folder)).length, folder).toBeLessThanOrEqual(15);
    }
  });

  it('folders import only the folders below them, and never the top', () => {
    const wrong: string[] = [];
    for (const [file, deps] of graph) {
      const from = folderOf(file);
      if (from === '.') continue;
      for (const dep of deps) {
        const to = folderOf(dep);
        if (to !== from && !MAY_IMPORT[from]!.includes(to)) wrong.push(`${file} -> ${dep}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('has no import cycle, and no import chain longer than 8 files', () => {
    expect(findCycle(graph)).toBeUndefined();
    const chain = longestChain(graph);
    expect(chain.length, chain.join(' -> ')).toBeLessThanOrEqual(8);
  });

  it('imports nothing of ours but protocol, idempotency, the telemetry seam and the shared delegation layer (ADR 0001, ADR 0091)', () => {
    const wrong = [...outsideImports(CLIENT)].flatMap(([file, targets]) =>
      targets
        .filter((t) => !/^\.\.\/(protocol|idempotency|delegation|card-signing|telemetry)\//.test(t))
        .map((t) => `${file} -> ${t}`),
    );
    expect(wrong).toEqual([]);
  });

  it('is reached from the rest of src only through its public entry', () => {
    const wrong = [...outsideImports(SRC)].flatMap(([file, targets]) =>
      file.startsWith('client/')
        ? []
        : targets
            .filter((t) => t.startsWith('client/') && t !== 'client/index.ts')
            .map((t) => `${file} -> ${t}`),
    );
    expect(wrong).toEqual([]);
  });
});

describe('the public entry a2a-once/client', () => {
  it('exports exactly these values (types are checked by the compiler against their users)', () => {
    expect(Object.keys(publicEntry).sort()).toEqual([
      'A2AClient',
      'CardNotTrustedError',
      'CardSignatureError',
      'ClientError',
      'DEFAULT_BACKOFF',
      'DEFAULT_CARD_REDIRECTS',
      'DEFAULT_MAX_EVENT_SIZE',
      'DEFAULT_MAX_RESPONSE_BYTES',
      'DELEGATION_EXTENSION_URI',
      'Delegation',
      'DelegationHandle',
      'MemoryIntentStore',
      'OutcomeUnknownError',
      'RetryBudget',
      'SUPPORTED_BINDINGS',
      'SqliteIntentStore',
      'SseEventTooLargeError',
      'SseParser',
      'StreamView',
      'TransportError',
      'backoffCeiling',
      'backoffDelay',
      'canonicalAgentCard',
      'cardUrlOf',
      'classifyFetchError',
      'describeError',
      'describeStreamEvent',
      'describeTask',
      'eventSequenceOf',
      'failureKindOf',
      'fetchAgentCard',
      'honoursKeys',
      'intentIdentityOf',
      'isSupportedVersion',
      'mayRetry',
      'messageIdForKey',
      'oauth2ClientCredentials',
      'parseRetryAfter',
      'retryDelay',
      'selectInterfaces',
      'signAgentCard',
      'toMessage',
      'verifyAgentCard',
      'withDelegationLimits',
    ]);
  });
});

describe('the public entry a2a-once/client/grpc', () => {
  it('exports exactly these values', () => {
    expect(Object.keys(grpcEntry).sort()).toEqual([
      'DEFAULT_GRPC_CHANNEL_OPTIONS',
      'STREAM_BUFFER_EVENTS',
      'grpcTransport',
    ]);
  });
});
