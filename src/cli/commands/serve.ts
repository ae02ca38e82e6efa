/**
 * `a2a-once serve`: serves a built-in agent over JSON-RPC and HTTP+JSON until SIGINT/SIGTERM.
 *
 *   a2a-once serve [--host 127.0.0.1] [--port N] [--agent echo|tck|ask|slow|delegating|ledger] [--store URL]
 *                  [--key-ttl 24h] [--tombstone-ttl 7d] [--max-keys N] [--expired-keys refuse|treat-as-new]
 *                  [--retention-interval 60s|off] [--retain-finished 7d] [--abandon-after 30d]
 *                  [--lease 30s] [--effects-log FILE] [--delay-ms N] [--verbose]
 *
 * Retention runs inside the server every `--retention-interval` (one replica at a time leads it, ADR 0035):
 * finished tasks older than `--retain-finished` go, expired keys become tombstones, tombstones older than
 * `--tombstone-ttl` go, and interrupted tasks nobody continued for `--abandon-after` are ended.
 *
 * Every running task is held under a lease of `--lease` (renewed every third of it). A task whose lease lapsed
 * lost its server (kill -9, OOM, a deploy) and is recovered (ADR 0037): at start-up, every half lease, and when a
 * request touches it; resumed when the agent can resume (`slow`), ended FAILED otherwise. Start-up recovery
 * prints one line on stderr: `a2a-once recovered N task(s) on start-up: R resumed, F failed`.
 *
 * The store defaults to SQLite in ./a2a-once.db, so a restarted server still replays the keys it claimed before
 * the restart, and recovers the tasks it left running. Prints exactly one line on stdout,
 * `a2a-once listening on http://HOST:PORT`, when it is ready.
 */
import { openStore, describeStoreUrl } from '../../store/open-store.js';
import { createAgent, EffectsLog, isAgentName, AGENT_NAMES } from '../agents/index.js';
import { createA2AServer } from '../../server/create-server.js';
import type { RecoveryReport } from '../../server/recovery/task-recovery.js';
import { MIN_LEASE_MS } from '../../server/runner/turn-lease.js';
import { jsonLineLogger } from '../../server/observability/logger.js';
import { serveNode } from '../../server/node/index.js';
import { parseArgs, parseDuration, UsageError } from '../args.js';
import type { CliIO } from '../io.js';

/** Default embedded store of `serve`. */
export const DEFAULT_STORE_URL = 'sqlite:./a2a-once.db';

function positiveInt(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a non-negative integer`);
  return n;
}

function positiveDuration(name: string, text: string): number {
  const ms = parseDuration(text);
  if (ms <= 0) throw new UsageError(`--${name} must be longer than zero`);
  return ms;
}

/** `--lease`: a duration of at least MIN_LEASE_MS (renewals come every third of it). */
function leaseDuration(text: string): number {
  const ms = parseDuration(text);
  if (ms < MIN_LEASE_MS) throw new UsageError(`--lease must be at least ${MIN_LEASE_MS}ms`);
  return ms;
}

/** The start-up recovery line. */
export function recoveryLine(r: RecoveryReport): string {
  const n = r.resumed + r.failed;
  return `a2a-once recovered ${n} task(s) on start-up: ${r.resumed} resumed, ${r.failed} failed`;
}

/** Runs `serve`; resolves with the exit code after shutdown. */
export async function run(args: string[], io: CliIO): Promise<number> {
  let opts;
  try {
    opts = parseArgs(args, {
      values: [
        'host',
        'port',
        'agent',
        'store',
        'key-ttl',
        'tombstone-ttl',
        'max-keys',
        'expired-keys',
        'effects-log',
        'delay-ms',
        'retention-interval',
        'retain-finished',
        'abandon-after',
        'lease',
      ],
      flags: ['verbose'],
    });
    const agentName = opts.values.get('agent') ?? 'echo';
    if (!isAgentName(agentName)) throw new UsageError(`--agent must be one of ${AGENT_NAMES.join(', ')}`);
    const expired = opts.values.get('expired-keys') ?? 'refuse';
    if (expired !== 'refuse' && expired !== 'treat-as-new') {
      throw new UsageError('--expired-keys must be refuse or treat-as-new');
    }
    const keyTtlMs = parseDuration(opts.values.get('key-ttl') ?? '24h');
    const tombstoneTtlMs = parseDuration(opts.values.get('tombstone-ttl') ?? '7d');
    const maxKeys = positiveInt('max-keys', opts.values.get('max-keys'), 100_000);
    const port = positiveInt('port', opts.values.get('port'), 0);
    const delayMs = positiveInt('delay-ms', opts.values.get('delay-ms'), 500);
    const host = opts.values.get('host') ?? '127.0.0.1';
    const storeUrl = opts.values.get('store') ?? DEFAULT_STORE_URL;
    const effectsPath = opts.values.get('effects-log');
    const retentionInterval = opts.values.get('retention-interval') ?? '60s';
    const leaseMs = leaseDuration(opts.values.get('lease') ?? '30s');
    const retention =
      retentionInterval === 'off'
        ? (false as const)
        : {
            intervalMs: positiveDuration('retention-interval', retentionInterval),
            terminalMaxAgeMs: positiveDuration('retain-finished', opts.values.get('retain-finished') ?? '7d'),
            tombstoneMaxAgeMs: tombstoneTtlMs,
            interruptedMaxAgeMs: positiveDuration('abandon-after', opts.values.get('abandon-after') ?? '30d'),
          };

    const store = await openStore(storeUrl, { tombstoneTtlMs });
    const agent = createAgent(agentName, {
      ...(effectsPath ? { effectsLog: new EffectsLog(effectsPath) } : {}),
      delayMs,
    });
    const server = createA2AServer({
      agent: agent.executor,
      card: agent.card,
      ...(agent.extendedCard ? { extendedCard: agent.extendedCard } : {}),
      store,
      keyTtlMs,
      maxKeysPerScope: maxKeys,
      expiredKeys: expired,
      retention,
      leaseMs,
      logger: jsonLineLogger(opts.flags.has('verbose')),
    });
    // Before listening: what the previous run left behind is settled (or running again) by the time we serve.
    if (server.recovery) io.err(recoveryLine(await server.recovery.startup));
    // GetTask calls carrying a delegation renewal keep leased child tasks alive (ADR 0039).
    const handle = await serveNode(server.fetch, { host, port });
    io.out(`a2a-once listening on ${handle.url}`);
    if (opts.flags.has('verbose')) {
      io.err(`agent ${agentName}, store ${describeStoreUrl(storeUrl)}, lease ${leaseMs} ms`);
      io.err(
        retention === false
          ? 'retention: off (run a2a-once sweep)'
          : `retention: every ${retentionInterval}, led by one replica (${server.retention?.settings.holder ?? ''})`,
      );
    }

    await new Promise<void>((resolve) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolve();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
    await handle.close();
    // Running turns get a grace period to finish; a stuck agent must not make shutdown hang.
    await Promise.race([server.close(), new Promise((r) => setTimeout(r, 5000).unref())]);
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`a2a-once serve: ${err.message}`);
      return 2;
    }
    io.err(`a2a-once serve: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}
