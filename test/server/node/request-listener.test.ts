/**
 * The node:http adapter never answers 500 in silence: a handler that throws is logged with its stack
 * (ADR 0029), and the socket still gets an answer.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { LogFields, ServerLogger } from '../../../src/server/observability/logger.js';
import { serveNode, type NodeServerHandle } from '../../../src/server/node/index.js';
import { closeNode } from '../../helpers/close-node.js';

let handle: NodeServerHandle | undefined;
afterEach(async () => {
  if (handle) await closeNode(handle);
  handle = undefined;
});

describe('node request listener', () => {
  it('logs a handler failure with its stack and answers 500 with a JSON error body', async () => {
    const errors: { message: string; fields?: LogFields }[] = [];
    const logger: ServerLogger = {
      debug: () => undefined,
      info: () => undefined,
      warn: () => undefined,
      error: (message, fields) => void errors.push({ message, ...(fields ? { fields } : {}) }),
    };
    handle = await serveNode(() => Promise.reject(new Error('handler exploded')), { logger });
    const res = await fetch(`${handle.url}/some/path?secret=1`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error: { code: 500, status: 'INTERNAL' } });
    expect(errors).toHaveLength(1);
    expect(errors[0]?.fields).toMatchObject({
      method: 'POST',
      path: '/some/path',
      error: 'handler exploded',
    });
    expect(errors[0]?.fields?.stack).toMatch(/handler exploded/);
  });
});
