// a2a-once (built dist/) serving its echo agent. argv[2] picks the store: memory | sqlite:PATH | postgres://...
// (| sqlite-normal:PATH, below | redis://..., opened even when the server persists nothing, as the bench's shared
// one does). argv[3] `otel`: with `telemetry: openTelemetry()` and no tracer provider registered, the set-up whose
// cost border-cost.mjs measures; argv[3] `bearer`: `bearerTokens` accepting the token `BENCH_TOKEN` below;
// argv[3] `jwt:<JWKS JSON>`: `jwtBearer` with that static key set (issuer `bench-issuer`, audience
// `bench-agent`), border-cost.mjs signing the token (`jwt-uncached:<JWKS JSON>`: the same with `cache: false`,
// every request's signature checked); argv[3] `grpc`: the gRPC binding (`serveGrpc`) instead of HTTP, printing
// `grpc://127.0.0.1:PORT`. An argument that is a JSON object is merged into the server's options (scale.mjs: a
// retention schedule that runs every second).
// The memory-bound stores' key cap (memory, Redis) is raised far above what a run sends, so the keyed run measures
// sends, not 503 refusals; the disk stores run at their default, no cap (retention bounds them), as a production
// server does.
import { bearerTokens, createA2AServer, jwtBearer } from '../../dist/server/index.js';
import { serveNode } from '../../dist/server/node/index.js';
import { createEchoAgent } from '../../dist/cli/agents/echo.js';
import { openStore } from '../../dist/store/open-store.js';
import { exitWithParent } from './serve-util.mjs';

const storeUrl = process.argv[2] ?? 'memory';
const store = await open(storeUrl);

// `sqlite-normal:PATH` (bench only): SQLite with synchronous=NORMAL, to show what the per-commit fsync of the
// default FULL costs. Everything else goes through openStore like the CLI's --store.
async function open(url) {
  if (url.startsWith('redis://')) return openStore(url, { redis: { allowVolatile: true } });
  if (!url.startsWith('sqlite-normal:')) return openStore(url);
  const { SqliteTaskStore } = await import('../../dist/store/sqlite/index.js');
  const s = new SqliteTaskStore({ path: url.slice('sqlite-normal:'.length), synchronous: 'NORMAL' });
  await s.migrate();
  return s;
}
const agent = createEchoAgent();
const telemetry =
  process.argv[3] === 'otel' ? (await import('../../dist/otel/index.js')).openTelemetry() : undefined;
const mode = process.argv[3] ?? '';
/** The opaque token of the `bearer` mode (border-cost.mjs sends it). */
const BENCH_TOKEN = 'bench-token-0123456789abcdef0123456789abcdef';
const authenticate =
  mode === 'bearer'
    ? bearerTokens({ tokens: [{ token: BENCH_TOKEN, principal: 'bench', tenants: '*' }] })
    : mode.startsWith('jwt:') || mode.startsWith('jwt-uncached:')
      ? jwtBearer({
          keys: JSON.parse(mode.slice(mode.indexOf(':') + 1)),
          issuer: 'bench-issuer',
          audience: 'bench-agent',
          ...(mode.startsWith('jwt-uncached:') ? { cache: false } : {}),
        })
      : undefined;
const extraOptions = process.argv
  .slice(3)
  .filter((a) => a.startsWith('{'))
  .reduce((all, a) => ({ ...all, ...JSON.parse(a) }), {});
const server = createA2AServer({
  agent: agent.executor,
  card: agent.card,
  store,
  ...(telemetry ? { telemetry } : {}),
  ...(authenticate ? { http: { authenticate } } : {}),
  ...(storeUrl === 'memory' || storeUrl.startsWith('redis://') ? { maxKeysPerScope: 10_000_000 } : {}),
  ...extraOptions,
});
if (process.argv[3] === 'grpc') {
  const { serveGrpc } = await import('../../dist/server/grpc/index.js');
  const grpc = await serveGrpc(server, { host: '127.0.0.1', port: 0 });
  process.stdout.write(`grpc://${grpc.address}\n`);
  const stop = () =>
    grpc
      .close({ graceMs: 500 })
      .then(() => server.close())
      .finally(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  exitWithParent(stop);
} else {
  await serveHttp();
}

async function serveHttp() {
  const handle = await serveNode(server.fetch, { host: '127.0.0.1', port: 0 });
  process.stdout.write(`${handle.url}\n`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    handle.server.closeAllConnections();
    await Promise.race([
      handle.close().then(() => server.close()),
      new Promise((r) => setTimeout(r, 2000).unref()),
    ]);
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  exitWithParent(stop);
}
