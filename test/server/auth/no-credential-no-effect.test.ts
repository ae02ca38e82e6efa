/**
 * A request without a valid credential never reaches the agent or the store's write path (a fast-check
 * property over every operation, both bindings, every kind of missing or bad credential), and a credential
 * never appears in a log line or an answer (a capturing logger, grepped for the tokens).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { METHODS as ALL_METHODS, type A2AMethod } from '../../../src/protocol/constants.js';
import { anyOf, apiKeys, bearerTokens, createA2AServer, jwtBearer } from '../../../src/server/index.js';
import type { LogFields, ServerLogger } from '../../../src/server/observability/logger.js';
import { serveNode } from '../../../src/server/node/index.js';
import { MemoryTaskStore } from '../../../src/store/memory/memory-task-store.js';
import { call, countedAgent, countingStore, message, writesIn, type Binding } from './auth-fixtures.js';
import { closeNode } from '../../helpers/close-node.js';

const GOOD = 'good-token-abcdef-0123';
const KEY = 'good-api-key-zyxw-987';

const METHODS: readonly A2AMethod[] = ALL_METHODS;

function paramsFor(method: A2AMethod, tenant: string, key: string) {
  const t = tenant === '' ? {} : { tenant };
  switch (method) {
    case 'SendMessage':
    case 'SendStreamingMessage':
      return { ...t, message: message('hello', {}, key) };
    case 'ListTasks':
    case 'GetExtendedAgentCard':
      return t;
    case 'CreateTaskPushNotificationConfig':
      return { ...t, taskId: 'some-task', url: 'http://127.0.0.1:9/hook' };
    case 'GetTaskPushNotificationConfig':
    case 'DeleteTaskPushNotificationConfig':
      return { ...t, taskId: 'some-task', id: 'c1' };
    case 'ListTaskPushNotificationConfigs':
      return { ...t, taskId: 'some-task' };
    case 'GetTask':
    case 'CancelTask':
    case 'SubscribeToTask':
      return { ...t, id: 'some-task' };
  }
}

const badCredential = fc.oneof(
  fc.constant({}),
  fc.constant({ Authorization: 'Bearer' }),
  fc.constant({ Authorization: 'Bearer ' }),
  fc.constant({ Authorization: `Basic ${btoa(`x:${GOOD}`)}` }),
  fc.constant({ Authorization: `Bearer ${GOOD}x` }),
  fc.constant({ Authorization: `Bearer ${GOOD.slice(0, -1)}` }),
  fc.constant({ 'X-API-Key': `${KEY} extra` }),
  fc.constant({ 'X-API-Key': '' }),
  fc.stringMatching(/^[A-Za-z0-9._~+/-]{1,40}$/).map((s) => ({ Authorization: `Bearer ${s}` })),
  fc.stringMatching(/^[A-Za-z0-9_-]{2,12}\.[A-Za-z0-9_-]{2,12}\.[A-Za-z0-9_-]{0,12}$/).map((s) => ({
    Authorization: `Bearer ${s}`,
  })),
  fc.stringMatching(/^[!-~]{1,30}$/).map((s) => ({ 'X-API-Key': s })),
);

describe('no valid credential, no effect', () => {
  it('never runs the agent nor writes to the store, whatever the operation, binding or credential', async () => {
    const agent = countedAgent();
    const counted = countingStore(new MemoryTaskStore());
    const server = createA2AServer({
      agent: agent.agent,
      card: {
        name: 'p',
        description: 'property',
        capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
      },
      extendedCard: {
        name: 'p+',
        description: 'x',
        version: '1',
        supportedInterfaces: [],
        capabilities: { extendedAgentCard: true },
        defaultInputModes: ['text/plain'],
        defaultOutputModes: ['text/plain'],
        skills: [],
      },
      store: counted.store,
      retention: false,
      recovery: false,
      push: { allowPrivateTargets: true },
      http: {
        authenticate: anyOf(
          jwtBearer({ keys: { keys: [] }, issuer: 'https://i.test', audience: 'p' }),
          bearerTokens({ tokens: [{ token: GOOD, tenants: '*' }] }),
          apiKeys({ keys: [{ token: KEY, tenants: '*' }] }),
        ),
      },
    });
    const handle = await serveNode(server.fetch, { host: '127.0.0.1', port: 0 });
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...METHODS),
          fc.constantFrom<Binding>('jsonrpc', 'rest'),
          badCredential,
          fc.constantFrom('', 'acme'),
          async (method, binding, headers, tenant) => {
            const a = await call(
              handle.url,
              binding,
              method,
              paramsFor(method, tenant, 'prop-key-0123456789'),
              headers,
            );
            expect(a.status).toBe(401);
            expect(agent.total()).toBe(0);
            expect(writesIn(counted.calls)).toBe(0);
            // Not even a read of any scope: nothing of the store answers a caller who is nobody (the push
            // dispatcher's own polling takes no scope).
            expect(counted.log.filter((c) => c.owner !== undefined)).toEqual([]);
          },
        ),
        { numRuns: 200 },
      );
      // The counters can move: a good credential writes and runs.
      const ok = await call(
        handle.url,
        'jsonrpc',
        'SendMessage',
        paramsFor('SendMessage', '', 'ok-key-0123456789ab'),
        {
          Authorization: `Bearer ${GOOD}`,
        },
      );
      expect(ok.status).toBe(200);
      expect(agent.total()).toBe(1);
      expect(writesIn(counted.calls)).toBeGreaterThan(0);
    } finally {
      await closeNode(handle);
      await server.close();
    }
  });
});

describe('credentials stay out of logs and answers', () => {
  it('a capturing logger and every answer, grepped for the tokens, hold none of them', async () => {
    const lines: string[] = [];
    const capture = (level: string) => (m: string, f?: LogFields) =>
      lines.push(`${level} ${m} ${JSON.stringify(f ?? {})}`);
    const logger: ServerLogger = {
      enabled: () => true,
      debug: capture('debug'),
      info: capture('info'),
      warn: capture('warn'),
      error: capture('error'),
    };
    const server = createA2AServer({
      agent: {
        execute: async (ctx) => {
          if (ctx.userText === 'boom') throw new Error('agent failed on purpose');
          await ctx.complete('fine');
        },
      },
      card: { name: 'l', description: 'logs', capabilities: { streaming: true } },
      logger,
      retention: false,
      http: {
        authenticate: anyOf(
          jwtBearer({ jwksUrl: 'http://127.0.0.1:9/jwks', issuer: 'https://i.test', audience: 'l' }),
          bearerTokens({ tokens: [{ token: GOOD, tenants: '*' }] }),
          apiKeys({ keys: [{ token: KEY }] }),
        ),
      },
    });
    const handle = await serveNode(server.fetch, { host: '127.0.0.1', port: 0, logger });
    const answers: string[] = [];
    const fakeJwt = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLXNlY3JldA';
    const wrong = 'wrong-token-secret-777';
    try {
      for (const binding of ['jsonrpc', 'rest'] as Binding[]) {
        for (const [headers, text] of [
          [{ Authorization: `Bearer ${GOOD}` }, 'boom'],
          [{ Authorization: `Bearer ${GOOD}` }, 'hello'],
          [{ Authorization: `Bearer ${wrong}` }, 'hello'],
          [{ Authorization: `Bearer ${fakeJwt}` }, 'hello'],
          [{ 'X-API-Key': KEY }, 'boom'],
          [{ 'X-API-Key': wrong }, 'hello'],
          [{ 'X-API-Key': KEY }, 'hello'],
        ] as [Record<string, string>, string][]) {
          for (const method of ['SendMessage', 'SendStreamingMessage'] as A2AMethod[]) {
            const a = await call(handle.url, binding, method, { message: message(text) }, headers);
            answers.push(`${a.status} ${[...a.headers].join(' ')} ${a.text}`);
          }
          // A tenant the key is not granted: 403, still silent about the key.
          const d = await call(handle.url, binding, 'ListTasks', { tenant: 'elsewhere' }, headers);
          answers.push(`${d.status} ${d.text}`);
        }
      }
    } finally {
      await closeNode(handle);
      await server.close();
    }
    // Something was logged (the agent failures), so the grep below has material.
    expect(lines.some((l) => l.includes('agent failed on purpose') || l.startsWith('error'))).toBe(true);
    expect(answers.some((a) => a.startsWith('503'))).toBe(true);
    expect(answers.some((a) => a.startsWith('403'))).toBe(true);
    const all = [...lines, ...answers].join('\n');
    for (const secret of [GOOD, KEY, wrong, fakeJwt, 'c2lnbmF0dXJlLXNlY3JldA'])
      expect(all).not.toContain(secret);
  });
});
