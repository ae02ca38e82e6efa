/**
 * The README's quick start, kept compiling and tested (test/examples/quick-start.test.ts). It imports the package
 * by name, so it exercises the published `exports` map against the built output.
 */
import { A2AClient } from 'a2a-once/client';
import { createA2AServer } from 'a2a-once/server';
import { serveNode, type NodeServerHandle } from 'a2a-once/server/node';

/** Starts the greeter agent of the README on `port` (0 = any free port). */
export async function startGreeter(port = 8080): Promise<{ url: string; close(): Promise<void> }> {
  const server = createA2AServer({
    card: { name: 'greeter', description: 'Says hello', capabilities: { streaming: true } },
    agent: {
      async execute(ctx) {
        await ctx.working();
        await ctx.artifact({ name: 'greeting', parts: [{ text: `hello, ${ctx.userText}` }] });
        await ctx.complete();
      },
    },
  });
  const http: NodeServerHandle = await serveNode(server.fetch, { port });
  return {
    url: http.url,
    close: async () => {
      await http.close();
      await server.close();
    },
  };
}

/** The README's client snippet: one keyed send, retried only where that is safe. */
export async function greetOnce(url: string, name: string): Promise<string | undefined> {
  const client = await A2AClient.fromCardUrl(url);
  const result = await client.send(name); // keyed (the card advertises the extension), runs once
  return 'task' in result
    ? result.task.artifacts?.[0]?.parts.map((p) => ('text' in p ? p.text : '')).join('')
    : undefined;
}
