/**
 * `a2a-once serve`: serves a built-in agent over JSON-RPC and HTTP+JSON until SIGINT/SIGTERM.
 *
 *   a2a-once serve [--host 127.0.0.1] [--port 8420] [--agent echo|tck|ask|slow|delegating|ledger|tree]
 *                  [--store URL] [--key-ttl 24h] [--tombstone-ttl 7d] [--max-keys N]
 *                  [--expired-keys refuse|treat-as-new] [--retention-interval 60s|off] [--retain-finished 7d]
 *                  [--abandon-after 30d] [--lease 30s] [--webhook-secret whsec_...] [--allow-private-webhooks]
 *                  [--max-delegation-depth 8] [--delegation-budget 1h|off] [--effects-log FILE] [--delay-ms N]
 *                  [--auth-token TOKEN]... [--auth-tokens-file FILE] [--jwks URL --issuer I --audience A]
 *                  [--principal-claim sub] [--tenants-claim tenants] [--no-auth] [--sign-card KEY_FILE]
 *                  [--refused-content-type-status 400|415] [--shutdown-grace 10s] [--metrics-port N] [--grpc-port N]
 *                  [--verbose]
 *                  [--compat v0.3]
 *
 * `--compat v0.3` also serves A2A v0.3 peers (JSON-RPC, HTTP+JSON under `/v1`, the v0.3 card; ADR 0099,
 * ADR 0100, docs/guides/v03-peers.md); any other value is a usage error.
 *
 * Who may call (ADR 0078): bearer tokens (`--auth-token`, `--auth-tokens-file`) and JWTs (`--jwks`). Without any,
 * it listens only on a loopback host, unless `--no-auth` says to serve anyone, which it then repeats on stderr.
 *
 * Push notifications are delivered (ADR 0045) for agents whose card declares them (`tck`): signed when a
 * Standard Webhooks secret is given, by `--webhook-secret` or, better (a flag shows in `ps`), the environment
 * variable `A2A_ONCE_WEBHOOK_SECRET`; webhooks on loopback or private addresses only with
 * `--allow-private-webhooks`.
 *
 * The port defaults to 8420 (ADR 0043), so the URL a user types into `a2a-once send` stays the same from one run to
 * the next; `--port 0` takes any free port (tests, several servers on one machine).
 *
 * Retention runs inside the server every `--retention-interval` (one replica at a time leads it, ADR 0035):
 * finished tasks older than `--retain-finished` go, expired keys become tombstones, tombstones older than
 * `--tombstone-ttl` go, and interrupted tasks nobody continued for `--abandon-after` are ended.
 *
 * A delegation chain goes at most `--max-delegation-depth` hops below its root through this server (ADR 0061): a
 * deeper send is refused with DELEGATION_DEPTH_EXCEEDED, so agents that delegate to each other stop. A child a
 * built-in agent delegates to gets `--delegation-budget` as its deadline when nobody above it set one.
 *
 * Every running task is held under a lease of `--lease` (renewed every third of it). A task whose lease lapsed
 * lost its server (kill -9, OOM, a deploy) and is recovered (ADR 0037): at start-up, every half lease, and when a
 * request touches it; resumed when the agent can resume (`slow`), ended FAILED otherwise. Start-up recovery
 * prints one line on stderr: `a2a-once recovered N task(s) on start-up: R resumed, F failed`.
 *
 * SIGTERM or SIGINT drains it (ADR 0088): new sends are refused at once (503 with `Retry-After`, nothing ran, so
 * a client retries them elsewhere), running turns get `--shutdown-grace` to finish, what is left goes to another
 * replica's recovery, and the process exits within the grace plus a second. A second signal exits at once.
 *
 * `--metrics-port N` (default: off) serves the server's metrics (ADR 0094) at `http://HOST:N/metrics` in
 * Prometheus text, on the `--host` interface, through OpenTelemetry's Prometheus exporter (ADR 0095), which is
 * loaded only then: it needs `@opentelemetry/api`, `@opentelemetry/sdk-metrics` and
 * `@opentelemetry/exporter-prometheus` installed. It prints `a2a-once serve: metrics at URL` on stderr.
 *
 * `--grpc-port N` (default: off) also serves the gRPC binding (A2A §10, ADR 0108) on `--host`, over the same
 * server, listed on the card after JSON-RPC and HTTP+JSON (`protocolBinding: "GRPC"`, url `host:port`); it needs
 * `@grpc/grpc-js` and `protobufjs` installed and prints `a2a-once serve: gRPC at HOST:PORT` on stderr.
 *
 * The store defaults to SQLite in ./a2a-once.db, so a restarted server still replays the keys it claimed before
 * the restart, and recovers the tasks it left running. Prints exactly one line on stdout,
 * `a2a-once listening on http://HOST:PORT`, when it is ready; what it serves (agent, store, card) and how to stop
 * it go to stderr.
 */
import { openStore, describeStoreUrl } from '../../store/open-store.js';
import type { RedisPersistence } from '../../store/redis/redis-persistence.js';
import { createAgent, EffectsLog, AGENT_NAMES } from '../agents/index.js';
import type { AgentName } from '../agents/index.js';
import { createA2AServer } from '../../server/create-server.js';
import type { A2AServer } from '../../server/create-server.js';
import type { StartupRecoveryReport } from '../../server/recovery/recovery-schedule.js';
import { MIN_LEASE_MS } from '../../server/runner/turn-lease.js';
import { DEFAULT_SHUTDOWN_GRACE_MS, SHUTDOWN_MARGIN_MS } from '../../server/shutdown.js';
import { jsonLineLogger } from '../../server/observability/logger.js';
import { serveNode } from '../../server/node/index.js';
import type { GrpcServerHandle } from '../../server/grpc/index.js';
import { prepareGrpc } from './serve-grpc.js';
import { listenFailure, startMetrics } from './serve-listeners.js';
import { parseWebhookSecret, WebhookSecretError } from '../../webhook-wire/webhook-wire.js';
import {
  DEFAULT_DELEGATION_BUDGET_MS,
  DEFAULT_MAX_DELEGATION_DEPTH,
  MAX_DELEGATION_DEPTH,
} from '../../server/delegation/delegation-chain.js';
import {
  choiceOption,
  durationOption,
  formatDuration,
  integerOption,
  portOption,
  UsageError,
} from '../args.js';
import type { CliIO } from '../io.js';
import { runCommand, subcommand, textOption } from '../program.js';
import { badStoreUrl, sqliteFileOf } from '../store-file.js';
import { collect, serveAuth, type ServeAuthFlags } from '../serve-auth.js';
import { readCardSigningKeys } from '../card-signing-key-file.js';
import { checkCanListen } from '../port-check.js';
import { traceFileFromEnv } from '../../otel/span-file.js';

/** Default embedded store of `serve`. */
export const DEFAULT_STORE_URL = 'sqlite:./a2a-once.db';

/** Default port of `serve`: fixed, so the agent's URL survives a restart (ADR 0043). */
export const DEFAULT_PORT = 8420;

interface ServeFlags extends ServeAuthFlags {
  host: string;
  port: string;
  agent: string;
  store: string;
  keyTtl: string;
  tombstoneTtl: string;
  maxKeys: string;
  expiredKeys: string;
  retentionInterval: string;
  retainFinished: string;
  abandonAfter: string;
  lease: string;
  maxDelegationDepth: string;
  delegationBudget: string;
  effectsLog?: string;
  delayMs: string;
  shutdownGrace: string;
  refusedContentTypeStatus: string;
  verbose?: boolean;
  webhookSecret?: string;
  allowPrivateWebhooks?: boolean;
  signCard?: string;
  metricsPort?: string;
  grpcPort?: string;
  compat?: string;
  redisAllowVolatile?: boolean;
}

/** The environment variable holding the webhook signing secret (preferred to the flag: flags show in `ps`). */
export const WEBHOOK_SECRET_ENV = 'A2A_ONCE_WEBHOOK_SECRET';

/** A usage error naming what is wrong with a webhook secret, never echoing it. */
function checkWebhookSecret(secret: string): void {
  if (secret === '') return;
  try {
    parseWebhookSecret(secret);
  } catch (err) {
    if (err instanceof WebhookSecretError)
      throw new UsageError(`--webhook-secret / $${WEBHOOK_SECRET_ENV}: ${err.message}`);
    throw err;
  }
}

/** `27 s`, `1.5 min`: a wait as a person reads it. */
function waitText(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

/**
 * The start-up recovery line: what was taken over, then what could not be yet. A task whose lease has not lapsed
 * belongs to another process (a replica, or the one this run replaces, killed moments ago); the line says when
 * the first such lease lapses and how often recovery looks, so a user who restarted a crashed server knows when
 * its tasks come back.
 */
export function recoveryLine(r: StartupRecoveryReport, intervalMs?: number): string {
  const n = r.resumed + r.failed;
  const deferred =
    r.deferred > 0 ? ` (${r.deferred} more resumable task(s) wait until a resumed turn ends)` : '';
  const done = `a2a-once recovered ${n} task(s) on start-up: ${r.resumed} resumed, ${r.failed} failed${deferred}`;
  const held = r.stillLeased;
  if (held === undefined || held.held === 0) return done;
  const first =
    held.firstLapseInMs === undefined ? '' : `; the first lease lapses in ${waitText(held.firstLapseInMs)}`;
  const every = intervalMs === undefined ? '' : ` (recovery looks every ${waitText(intervalMs)})`;
  return (
    `${done}; ${held.held} task(s) still leased by another process (a replica, or the run before this one)` +
    `${first}${every}`
  );
}

/** `sqlite:./a2a-once.db (/home/me/a2a-once.db)`: the URL as given, and the file it opened. */
function storeText(url: string): string {
  const file = sqliteFileOf(url);
  return describeStoreUrl(url) + (file !== undefined ? ` (${file})` : '');
}

/**
 * Resolves once SIGINT or SIGTERM arrives. The next one exits the process at once: an operator who signals twice
 * does not want to wait for the grace.
 */
function untilStopped(io: CliIO): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      const now = () => {
        io.err('a2a-once serve: second signal, exiting now');
        process.exit(1);
      };
      process.once('SIGINT', now);
      process.once('SIGTERM', now);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** The options that take a value: flags, what they do, the default `--help` shows and the command applies. */
const VALUE_OPTIONS: readonly (readonly [string, string, string])[] = [
  ['--host <host>', 'interface to listen on', '127.0.0.1'],
  ['--port <port>', 'port to listen on, 0 for any free port', String(DEFAULT_PORT)],
  ['--agent <name>', `agent to serve: ${AGENT_NAMES.join(', ')}`, 'echo'],
  [
    '--store <url>',
    'task store: memory, sqlite:PATH, postgres://USER@HOST/DB?schema=NAME or redis://HOST:PORT/DB?prefix=NAME',
    DEFAULT_STORE_URL,
  ],
  ['--key-ttl <duration>', 'how long an idempotency key is held (the card advertises it)', '24h'],
  ['--tombstone-ttl <duration>', 'how long an expired key still refuses a late retry', '7d'],
  [
    '--max-keys <n>',
    'live keys per tenant and principal, at least 1, or none (ADR 0047)',
    'auto: 100000 on memory, none on sqlite and postgres',
  ],
  ['--expired-keys <policy>', 'a key past --key-ttl: refuse or treat-as-new', 'refuse'],
  ['--retention-interval <duration>', 'how often retention runs, or off (then run a2a-once sweep)', '60s'],
  ['--retain-finished <duration>', 'how long finished tasks are kept', '7d'],
  ['--abandon-after <duration>', 'end tasks left waiting for input this long', '30d'],
  ['--lease <duration>', `worker lease of a running task, at least ${MIN_LEASE_MS}ms`, '30s'],
  [
    '--max-delegation-depth <n>',
    `hops a delegation chain may go below its root, 0 to ${MAX_DELEGATION_DEPTH}`,
    String(DEFAULT_MAX_DELEGATION_DEPTH),
  ],
  [
    '--delegation-budget <duration>',
    'deadline of a delegated child when nobody above it set one, or off',
    formatDuration(DEFAULT_DELEGATION_BUDGET_MS),
  ],
  ['--delay-ms <n>', 'how long the slow agent works, in ms', '500'],
  [
    '--shutdown-grace <duration>',
    'on SIGTERM or SIGINT, how long running tasks may finish before another replica takes them over',
    formatDuration(DEFAULT_SHUTDOWN_GRACE_MS),
  ],
  [
    '--refused-content-type-status <status>',
    'HTTP status of a body that is not JSON: 400 (A2A v1.0.1) or 415 (v1.0.0, its conformance suite)',
    '400',
  ],
];

/** Runs `serve`; resolves with the exit code after shutdown. */
export function run(args: string[], io: CliIO): Promise<number> {
  const command = subcommand(io, 'serve', 'serve a built-in agent over JSON-RPC and HTTP+JSON');
  for (const [flags, description, fallback] of VALUE_OPTIONS)
    command.addOption(textOption(flags, description, fallback));
  command
    .option('--effects-log <file>', 'append a line per agent run to this file, for tests (default: none)')
    .option(
      '--webhook-secret <whsec>',
      `sign push notifications with this Standard Webhooks secret, whsec_<base64> (default: $${WEBHOOK_SECRET_ENV}, else unsigned)`,
    )
    .option(
      '--allow-private-webhooks',
      'let webhooks point at loopback and private addresses (default: refused)',
    )
    .option(
      '--auth-token <token>',
      'accept this bearer token, principal token:<8 hex of its SHA-256>; repeatable (default: none)',
      collect,
    )
    .option(
      '--auth-tokens-file <file>',
      'accept the bearer tokens listed: TOKEN PRINCIPAL [TENANT,...] per line (default: none)',
    )
    .option(
      '--jwks <url>',
      'accept JWT bearer tokens signed by a key of this JWKS (with --issuer, --audience) (default: none)',
    )
    .option('--issuer <iss>', 'the iss a JWT must carry (default: none)')
    .option('--audience <aud>', 'the aud a JWT must carry (default: none)')
    .option('--principal-claim <claim>', 'the JWT claim naming the principal (default: sub)')
    .option('--tenants-claim <claim>', 'the JWT claim listing the tenants (default: tenants)')
    .option('--no-auth', 'serve without authentication on a host other than loopback')
    .option(
      '--sign-card <key-file>',
      'sign the agent card with the private JWK (or JWKS) in this file, kid required; serves /.well-known/jwks.json',
    )
    .option(
      '--metrics-port <port>',
      'serve metrics in Prometheus text at http://HOST:PORT/metrics, 0 for any free port (default: off)',
    )
    .option(
      '--grpc-port <port>',
      'also serve the gRPC binding on HOST:PORT, listed on the card; needs @grpc/grpc-js and protobufjs (default: off)',
    )
    .option(
      '--compat <version>',
      'also serve A2A v0.3 peers: v0.3 JSON-RPC, v0.3 HTTP+JSON under /v1 and the v0.3 card (default: v1.0 only)',
    )
    .option(
      '--redis-allow-volatile',
      'open a redis:// store whose server persists nothing (a restart of it forgets every key) (default: refused)',
    )
    .option('--verbose', 'log every request as a JSON line on stderr')
    .addHelpText(
      'after',
      '\nWhen ready it prints one line on stdout, `a2a-once listening on http://HOST:PORT`, and on stderr the agent,\n' +
        'the store and the card URL. Ctrl+C (SIGINT) or SIGTERM stops it: new sends are refused, running tasks\n' +
        'get --shutdown-grace to finish, the rest is left to another replica; a second signal exits at once.',
    );
  return runCommand(command, args, io, () => serve(command.opts<ServeFlags>(), io));
}

async function serve(o: ServeFlags, io: CliIO): Promise<number> {
  // Every value is checked before anything opens, so a typo costs no store connection.
  const agentName: AgentName = choiceOption('agent', o.agent, AGENT_NAMES);
  const expiredKeys = choiceOption('expired-keys', o.expiredKeys, ['refuse', 'treat-as-new'] as const);
  // ADR 0058: the v1.0.1 error table by default; 415 for a v1.0.0 client or conformance suite.
  const refusedContentTypeStatus =
    choiceOption('refused-content-type-status', o.refusedContentTypeStatus, ['400', '415'] as const) === '415'
      ? 415
      : 400;
  // The only older version served (docs/guides/v03-peers.md); `0.3` is read as `v0.3`.
  const compat =
    o.compat === undefined
      ? undefined
      : choiceOption('compat', o.compat === '0.3' ? 'v0.3' : o.compat, ['v0.3'] as const);
  const port = portOption(o.port);
  const metricsPort = o.metricsPort === undefined ? undefined : portOption(o.metricsPort);
  const grpcPort = o.grpcPort === undefined ? undefined : portOption(o.grpcPort);
  const keyTtlMs = durationOption('key-ttl', o.keyTtl, 1);
  const tombstoneTtlMs = durationOption('tombstone-ttl', o.tombstoneTtl);
  // A store on disk is bounded by retention, not memory: no cap unless the operator sets one (ADR 0047).
  const maxKeys: number | false | undefined = o.maxKeys.startsWith('auto')
    ? undefined
    : o.maxKeys === 'none'
      ? false
      : integerOption('max-keys', o.maxKeys, 1);
  const delayMs = integerOption('delay-ms', o.delayMs, 0);
  const leaseMs = durationOption('lease', o.lease, MIN_LEASE_MS);
  const shutdownGraceMs = durationOption('shutdown-grace', o.shutdownGrace, 0);
  const delegation = {
    maxDepth: integerOption('max-delegation-depth', o.maxDelegationDepth, 0, MAX_DELEGATION_DEPTH),
    defaultBudgetMs:
      o.delegationBudget === 'off'
        ? (false as const)
        : durationOption('delegation-budget', o.delegationBudget, 1),
  };
  const retention =
    o.retentionInterval === 'off'
      ? (false as const)
      : {
          intervalMs: durationOption('retention-interval', o.retentionInterval, 1),
          terminalMaxAgeMs: durationOption('retain-finished', o.retainFinished, 1),
          tombstoneMaxAgeMs: tombstoneTtlMs,
          interruptedMaxAgeMs: durationOption('abandon-after', o.abandonAfter, 1),
        };

  const auth = serveAuth(o, o.host);

  const signingSecret = o.webhookSecret ?? process.env[WEBHOOK_SECRET_ENV];
  if (signingSecret !== undefined) checkWebhookSecret(signingSecret);
  const push = {
    ...(signingSecret !== undefined && signingSecret !== '' ? { signingSecret } : {}),
    allowPrivateTargets: o.allowPrivateWebhooks === true,
  };

  const cardSigning = o.signCard !== undefined ? { keys: readCardSigningKeys(o.signCard) } : undefined;

  // The port before the store: recovery must not take over a store's tasks for a server that cannot listen.
  await checkCanListen(o.host, port).catch((err: unknown) => {
    throw listenFailure(err, o.host, port);
  });
  // The metrics endpoint listens before the store opens too: a port in use fails the command before recovery.
  const metrics = metricsPort === undefined ? undefined : await startMetrics(o.host, metricsPort);
  // The gRPC packages load (and the port is checked) before the store opens too (ADR 0108).
  const grpc = grpcPort === undefined ? undefined : await prepareGrpc(o.host, grpcPort, metrics);
  // Internal, for `demo --trace` (ADR 0096): spans to the file the demo named, and to the agent's own clients.
  const tracing = await traceFileFromEnv();
  const traced = tracing ? { telemetry: tracing.telemetry } : {};
  let redisNote: string | undefined;
  const redis = {
    allowVolatile: o.redisAllowVolatile === true,
    onPersistence: (p: RedisPersistence) => {
      redisNote = p.persists
        ? `Redis ${p.version}, ${p.aof ? `AOF (appendfsync ${p.appendfsync ?? 'unknown'})` : 'RDB snapshots only'}`
        : `Redis ${p.version} persists NOTHING (--redis-allow-volatile): a restart of it forgets every key`;
    },
  };
  const store = await openStore(o.store, { tombstoneTtlMs, redis }).catch(async (err: unknown) => {
    await metrics?.close();
    throw badStoreUrl(err);
  });
  let server: A2AServer;
  try {
    const agent = createAgent(agentName, {
      ...(o.effectsLog ? { effectsLog: new EffectsLog(o.effectsLog) } : {}),
      delayMs,
      // The server delivers push notifications (ADR 0045), so a card may say so.
      pushNotifications: true,
      ...traced,
    });
    server = createA2AServer({
      agent: agent.executor,
      card: agent.card,
      ...(agent.extendedCard ? { extendedCard: agent.extendedCard } : {}),
      store,
      keyTtlMs,
      ...(maxKeys !== undefined ? { maxKeysPerScope: maxKeys } : {}),
      expiredKeys,
      retention,
      leaseMs,
      push,
      delegation,
      ...(cardSigning ? { cardSigning } : {}),
      ...(compat ? { compat: ['0.3' as const] } : {}),
      ...(grpc ? { grpcInterface: grpc.cardInterface } : {}),
      logger: jsonLineLogger(o.verbose === true),
      ...(metrics ? { metrics: metrics.metrics } : {}),
      ...traced,
      http: {
        refusedContentTypeStatus,
        ...(auth.authenticator ? { authenticate: auth.authenticator } : {}),
      },
    });
  } catch (err) {
    await store.close();
    await metrics?.close();
    throw err;
  }
  let handle;
  let grpcHandle: GrpcServerHandle | undefined;
  try {
    // Before listening: what the previous run left behind is settled (or running again) by the time we serve.
    if (server.recovery) io.err(recoveryLine(await server.recovery.startup, server.recovery.intervalMs));
    // GetTask calls carrying a delegation renewal keep leased child tasks alive (ADR 0039).
    handle = await serveNode(server.fetch, { host: o.host, port }).catch((err: unknown) => {
      throw listenFailure(err, o.host, port);
    });
    if (grpc && grpcPort !== undefined) grpcHandle = await grpc.start(server, o.host, grpcPort, handle.url);
  } catch (err) {
    // Closing stops the schedules, so the process can exit with the error.
    await handle?.close();
    await server.close();
    await metrics?.close();
    throw err;
  }
  io.err(`a2a-once serve: agent ${agentName}, store ${storeText(o.store)}`);
  if (redisNote !== undefined) io.err(`a2a-once serve: ${redisNote}`);
  io.err(`a2a-once serve: authentication: ${auth.summary}`);
  io.out(`a2a-once listening on ${handle.url}`);
  io.err(`a2a-once serve: card at ${handle.url}/.well-known/agent-card.json; Ctrl+C (or SIGTERM) stops it`);
  if (metrics) io.err(`a2a-once serve: metrics at ${metrics.url}`);
  if (grpcHandle) io.err(`a2a-once serve: gRPC at ${grpcHandle.address}`);
  if (o.verbose === true) {
    io.err(`a2a-once serve: lease ${leaseMs} ms`);
    io.err(
      retention === false
        ? 'retention: off (run a2a-once sweep)'
        : `retention: every ${o.retentionInterval}, led by one replica (${server.retention?.settings.holder ?? ''})`,
    );
  }

  await untilStopped(io);
  io.err(`a2a-once serve: draining, up to ${formatDuration(shutdownGraceMs)}`);
  // Both bounded (ADR 0088): the server answers what is in flight and closes the store within the grace plus its
  // margin, and the sockets still open after that are destroyed.
  await Promise.all([
    handle.close({ graceMs: shutdownGraceMs + SHUTDOWN_MARGIN_MS }),
    grpcHandle?.close({ graceMs: shutdownGraceMs + SHUTDOWN_MARGIN_MS }),
    // Once nothing is left to drain, idle keep-alive connections go too (until then a request on one is answered,
    // not cut: ADR 0088).
    server.close({ graceMs: shutdownGraceMs }).finally(() => handle.server.closeIdleConnections()),
  ]);
  await metrics?.close();
  return 0;
}
