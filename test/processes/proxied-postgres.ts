/**
 * A `serve` process whose PostgreSQL connections all go through a loopback fault proxy (test/helpers/tcp-proxy.ts),
 * with short connection limits in the store URL so a stall costs the test a second or two rather than the
 * defaults' twenty (ADR 0063). Used by the process tests that cut and stall the database under a real server.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message, Task } from '../../src/protocol/model.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { dropSchema, freshSchemaUrl } from './postgres-server.js';
import { startServe, type ServeProcess } from './serve-process.js';

/** The URL limits: a statement's answer awaited 1.5 s, the server cancelling it at 1 s. */
export const QUICK_LIMITS =
  'query_timeout=1500&statement_timeout=1000&lock_timeout=800&idle_in_transaction_session_timeout=2000&connect_timeout=2';

/** A serve process behind a proxy, on a fresh schema. */
export interface ProxiedServe {
  readonly proxy: TcpProxy;
  readonly serve: ServeProcess;
  /** The effects log the agent writes a line to per run. */
  readonly effectsLog: string;
  /** Stops the process, closes the proxy, drops the schema. */
  close(): Promise<void>;
}

/** Starts `a2a-once serve --agent echo` on PostgreSQL behind a fresh proxy; `args` are added to the command. */
export async function startProxiedServe(prefix: string, args: string[] = []): Promise<ProxiedServe> {
  const proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
  const { url, schema } = freshSchemaUrl(prefix);
  const store = `${url.replace('127.0.0.1:5432', `127.0.0.1:${proxy.port}`)}&${QUICK_LIMITS}`;
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const effectsLog = join(dir, 'effects.log');
  let serve: ServeProcess;
  try {
    serve = await startServe(['--agent', 'echo', '--store', store, '--effects-log', effectsLog, ...args]);
  } catch (err) {
    await proxy.close();
    throw err;
  }
  return {
    proxy,
    serve,
    effectsLog,
    async close() {
      proxy.heal();
      await serve.stop();
      await proxy.close();
      await dropSchema(schema);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What one blocking SendMessage came back with, and when. */
export interface TimedAnswer {
  readonly ms: number;
  /** The task answered, if the answer was one. */
  readonly task?: Task;
  /** The JSON-RPC error answered, if any. */
  readonly error?: { code: number; message: string };
  /** No answer: the connection failed or the test's own deadline passed. */
  readonly unanswered?: string;
}

/** A blocking JSON-RPC SendMessage with a deadline of the test's own. */
export async function timedSend(url: string, message: Message, deadlineMs: number): Promise<TimedAnswer> {
  const start = performance.now();
  try {
    const res = await fetch(`${url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'A2A-Version': '1.0' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message } }),
      signal: AbortSignal.timeout(deadlineMs),
    });
    const body = (await res.json()) as {
      result?: { task?: Task };
      error?: { code: number; message: string };
    };
    const ms = performance.now() - start;
    if (body.result?.task) return { ms, task: body.result.task };
    if (body.error) return { ms, error: body.error };
    return { ms, unanswered: `unexpected answer ${JSON.stringify(body)}` };
  } catch (err) {
    return { ms: performance.now() - start, unanswered: String(err) };
  }
}
