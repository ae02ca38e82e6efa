// A server process that delivers push notifications, for the kill -9 test (push-restart.test.ts): the built
// package (dist/), on the store named by argv[2], listening on 127.0.0.1, with loopback webhooks allowed and
// short timings. It prints `listening <url>` once it serves. The agent reports five artifacts, then completes.
import { createA2AServer } from '../../dist/server/index.js';
import { serveNode } from '../../dist/server/node/index.js';
import { openStore } from '../../dist/store/open-store.js';

const store = await openStore(process.argv[2]);
await store.migrate?.();
const server = createA2AServer({
  store,
  card: {
    name: 'push-restart',
    description: 'push after kill -9',
    capabilities: { pushNotifications: true },
  },
  agent: {
    async execute(ctx) {
      await ctx.working();
      for (let i = 0; i < 5; i++)
        await ctx.artifact({ artifactId: `a${i}`, name: `a${i}`, parts: [{ text: `${i}` }] });
      await ctx.complete();
    },
  },
  retention: false,
  push: {
    allowPrivateTargets: true,
    pollIntervalMs: 100,
    attemptTimeoutMs: 300,
    claimMs: 1000,
    backoff: { baseMs: 50, maxMs: 200 },
  },
});
const { url } = await serveNode(server.fetch, { port: 0 });
process.stdout.write(`listening ${url}\n`);
