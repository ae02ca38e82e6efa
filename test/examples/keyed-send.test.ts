import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { payOnce } from '../../examples/keyed-send.js';
import { echoAgent } from '../../examples/hosting/mount.js';
import { serveNode, type NodeServerHandle } from '../../src/server/node/index.js';
import { closeNode } from '../helpers/close-node.js';

describe('example: a keyed send', () => {
  let agent: ReturnType<typeof echoAgent>;
  let http: NodeServerHandle;
  beforeAll(async () => {
    agent = echoAgent();
    http = await serveNode(agent.fetch);
  });
  afterAll(async () => {
    await closeNode(http);
    await agent.close();
  });

  it('sending the same text under the same key twice answers with one task', async () => {
    const { first, retry } = await payOnce(http.url, '1042');
    expect(retry).toBe(first);
    const other = await payOnce(http.url, '1043');
    expect(other.first).not.toBe(first);
  });
});
