/**
 * `a2a-once serve`: serves a built-in agent over JSON-RPC and HTTP+JSON until SIGINT/SIGTERM.
 *
 *   a2a-once serve [--host 127.0.0.1] [--port N] [--agent echo|tck|ask|slow] [--store URL]
 *                  [--key-ttl 24h] [--tombstone-ttl 7d] [--max-keys N] [--expired-keys refuse|treat-as-new]
 *                  [--effects-log FILE] [--delay-ms N] [--verbose]
 *
 * The store defaults to SQLite in ./a2a-once.db, so a restarted server still replays the keys it claimed before
 * the restart. Prints exactly one line, `a2a-once listening on http://HOST:PORT`, when it is ready.
 */
import { openStore, describeStoreUrl } from '../../store/open-store.js';
import { createAgent, EffectsLog, isAgentName, AGENT_NAMES } from '../../server/agents/index.js';
import { createA2AServer } from '../../server/create-server.js';
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
      maxKeysPerTenant: maxKeys,
      expiredKeys: expired,
      logger: jsonLineLogger(opts.flags.has('verbose')),
    });
    const handle = await serveNode(server.fetch, { host, port });
    io.out(`a2a-once listening on ${handle.url}`);
    if (opts.flags.has('verbose')) io.err(`agent ${agentName}, store ${describeStoreUrl(storeUrl)}`);

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
