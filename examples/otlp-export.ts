/**
 * Exporting an a2a-once server's and client's spans to an OpenTelemetry collector over OTLP/HTTP
 * (docs/guides/observability.md, "Export to a collector"). `@opentelemetry/exporter-trace-otlp-http` posts the
 * spans as JSON (`application/json`; the protobuf encoding is the `exporter-trace-otlp-proto` package) to
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, default `http://127.0.0.1:4318/v1/traces`, a collector's OTLP/HTTP
 * receiver. The provider and the propagator are passed to `openTelemetry()` rather than registered globally;
 * the context manager is global, as there is only one per process. Run it next to a collector:
 * `npm run build && npx vite-node examples/otlp-export.ts --main`. Tested in test/examples/otlp-export.test.ts,
 * against a small HTTP server standing in for the collector.
 */
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { A2AClient } from 'a2a-once/client';
import { openTelemetry } from 'a2a-once/otel';
import { createA2AServer } from 'a2a-once/server';
import { serveNode } from 'a2a-once/server/node';

/** The variable naming the collector's traces URL (the exporter's own, read here to show where it goes). */
export const COLLECTOR_URL_ENV = 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT';

/** A collector's OTLP/HTTP traces receiver on this machine. */
export const DEFAULT_COLLECTOR_URL = 'http://127.0.0.1:4318/v1/traces';

/** The service the spans are reported under. */
export const SERVICE_NAME = 'invoicer';

/** A traced agent and a traced client of it. */
export interface TracedAgent {
  readonly url: string;
  /** One keyed send through the traced client; resolves to the task's state. */
  send(text: string): Promise<string>;
  /** Stops the server and flushes every span still batched to the collector. */
  close(): Promise<void>;
}

/** Starts an agent on `port` (0: any free port) whose spans, and its client's, go to `collectorUrl`. */
export async function startTracedAgent(
  collectorUrl = process.env[COLLECTOR_URL_ENV] ?? DEFAULT_COLLECTOR_URL,
  port = 0,
): Promise<TracedAgent> {
  // Batched: spans leave in the background, a few per POST; shutdown() sends what is left.
  // `service.name` is what a trace viewer lists the spans under (without it: `unknown_service:node`).
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': SERVICE_NAME }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: collectorUrl }))],
  });
  // The turn runs inside its send's span, so its steps and child sends join the trace.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const telemetry = openTelemetry({ tracerProvider: provider, propagator: new W3CTraceContextPropagator() });

  const server = createA2AServer({
    card: { name: 'invoicer', description: 'Sends an invoice, once' },
    telemetry,
    agent: {
      async execute(ctx) {
        const receipt = await ctx.step('send-invoice', () => `invoice for ${ctx.userText}`);
        await ctx.complete(receipt);
      },
    },
  });
  const http = await serveNode(server.fetch, { port });
  const client = await A2AClient.fromCardUrl(http.url, { telemetry });
  return {
    url: http.url,
    async send(text) {
      const answer = await client.send(text);
      return 'task' in answer ? answer.task.status.state : 'a message';
    },
    async close() {
      await http.close();
      await server.close();
      await provider.shutdown();
    },
  };
}

async function main(): Promise<void> {
  const collectorUrl = process.env[COLLECTOR_URL_ENV] ?? DEFAULT_COLLECTOR_URL;
  const agent = await startTracedAgent(collectorUrl);
  try {
    console.log(`the task ended ${await agent.send('ACME, March')}`);
  } finally {
    await agent.close();
  }
  console.log(`its spans went to ${collectorUrl}`);
}

// Runs only when asked (`--main`): the test imports this file for its functions.
if (process.argv.includes('--main')) await main();
