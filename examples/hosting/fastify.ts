/**
 * Hosting in Fastify: the route hijacks the reply and hands the raw node request and response to the listener
 * `createRequestListener` makes of the fetch handler. Fastify must not parse the body first (the agent reads it
 * raw), so the content-type parser leaves it unread. Tested in test/examples/hosting.test.ts.
 */
import Fastify from 'fastify';
import { createRequestListener } from 'a2a-once/server/node';
import { echoAgent, type Hosted } from './mount.js';

export async function startOnFastify(): Promise<Hosted> {
  const agent = echoAgent();
  const app = Fastify();
  const a2a = createRequestListener(agent.fetch);
  // Leave every body unread: the agent reads and checks it (size, media type) itself.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));
  app.all('/*', (request, reply) => {
    reply.hijack();
    a2a(request.raw, reply.raw);
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url,
    close: async () => {
      await app.close();
      await agent.close();
    },
  };
}
