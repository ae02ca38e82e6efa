/**
 * The agent every hosting example mounts: one `createA2AServer`, whose `fetch` handler is framework-neutral
 * (a web `Request` in, a `Response` out). Each framework file shows the few lines that plug it in.
 */
import { createA2AServer, type A2AServer } from 'a2a-once/server';

/** An echo agent. */
export function echoAgent(): A2AServer {
  return createA2AServer({
    card: { name: 'echo', description: 'Echoes', capabilities: { streaming: true } },
    agent: {
      async execute(ctx) {
        await ctx.artifact({ name: 'echo', parts: [{ text: `echo: ${ctx.userText}` }] });
        await ctx.complete();
      },
    },
  });
}

/** A framework server started on a free loopback port. */
export interface Hosted {
  readonly url: string;
  close(): Promise<void>;
}
