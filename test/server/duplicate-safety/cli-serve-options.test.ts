/**
 * On the command line: `a2a-once serve` with `--key-ttl`, `--tombstone-ttl`, `--max-keys`,
 * `--expired-keys`, checked by behaviour against the built CLI (dist/, built by `npm test`'s pretest), with the
 * effects log counting executions from outside the process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyHash, mintKey } from '../../../src/idempotency/index.js';
import type { AgentCard } from '../../../src/protocol/agent-card.js';
import { countEffects } from '../../../src/cli/agents/index.js';
import {
  BINDINGS,
  REFUSALS,
  errorOf,
  expectedShape,
  freshKey,
  keyedMessage,
  overSocket,
  refusalShape,
  send,
  taskOf,
  until,
  userMessage,
  withTimeout,
  type Endpoint,
} from './helpers.js';

const CLI = resolve(import.meta.dirname, '../../../dist/cli/bin.js');
const dir = mkdtempSync(join(tmpdir(), 'a2a-once-cli-'));
const children = new Set<ChildProcess>();

interface Served {
  readonly proc: ChildProcess;
  readonly ep: Endpoint;
  readonly log: string;
  stderr(): string;
}

let serial = 0;

/** Starts `a2a-once serve` on a free port and waits for its one "listening" line. */
async function serve(extra: string[]): Promise<Served> {
  const log = join(dir, `effects-${++serial}.jsonl`);
  const proc = spawn(
    process.execPath,
    [CLI, 'serve', '--port', '0', '--agent', 'echo', '--store', 'memory', '--effects-log', log, ...extra],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.add(proc);
  let out = '';
  let err = '';
  proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const url = await withTimeout(
    new Promise<string>((resolveUrl, reject) => {
      proc.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /a2a-once listening on (http:\/\/\S+)/.exec(out);
        if (m) resolveUrl(m[1]!);
      });
      proc.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
    }),
    15_000,
    'serve to listen',
  );
  return { proc, ep: overSocket(url), log, stderr: () => err };
}

/** Runs `a2a-once serve` expecting it to exit; returns its code and output. */
async function runToExit(extra: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--store', 'memory', ...extra], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(proc);
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await withTimeout(
    new Promise<number | null>((r) => proc.once('exit', (c) => r(c))),
    15_000,
    `serve ${extra.join(' ')} to exit`,
  );
  children.delete(proc);
  return { code, stdout, stderr };
}

async function stop(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  proc.kill('SIGTERM');
  await withTimeout(exited, 8000, 'serve to stop').catch(() => {
    proc.kill('SIGKILL');
  });
}

beforeAll(() => {
  if (!existsSync(CLI))
    throw new Error(`${CLI} is missing: run \`npm run build\` (npm test builds it in pretest)`);
});

afterAll(async () => {
  await Promise.all([...children].map((p) => stop(p)));
  rmSync(dir, { recursive: true, force: true });
});

async function card(ep: Endpoint): Promise<AgentCard> {
  const res = await ep.fetch(new Request(`${ep.base}/.well-known/agent-card.json`));
  return (await res.json()) as AgentCard;
}

describe('a2a-once serve --max-keys', () => {
  let s: Served;
  beforeAll(async () => {
    s = await serve(['--max-keys', '2']);
  });

  it('the third keyed send gets 503 with Retry-After over REST and -32603 IDEMPOTENCY_CAPACITY over JSON-RPC; nothing runs', async () => {
    const first = keyedMessage('one');
    taskOf(await send(s.ep, 'rest', first));
    taskOf(await send(s.ep, 'jsonrpc', keyedMessage('two')));
    for (const binding of BINDINGS) {
      const e = errorOf(await send(s.ep, binding, keyedMessage(`three over ${binding}`)));
      expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.capacity));
      expect(e.httpStatus).toBe(503);
      expect(Number(e.retryAfter)).toBeGreaterThan(0);
    }
    expect(countEffects(s.log)).toBe(2);
    // A retry of a held key is still a replay, and unkeyed sends still run.
    taskOf(await send(s.ep, 'rest', first));
    expect(countEffects(s.log)).toBe(2);
    taskOf(await send(s.ep, 'rest', userMessage('unkeyed')));
    expect(countEffects(s.log)).toBe(3);
  });
});

describe('a2a-once serve without a key cap', () => {
  it('--max-keys none on memory, and the default on SQLite, start and take keyed sends (ADR 0047)', async () => {
    for (const extra of [
      ['--max-keys', 'none'],
      ['--store', `sqlite:${join(dir, `nocap-${serial}.db`)}`],
    ]) {
      const t = await serve(extra);
      for (let i = 0; i < 3; i++) taskOf(await send(t.ep, 'jsonrpc', keyedMessage(`no cap ${i}`)));
      expect(countEffects(t.log)).toBe(3);
      expect(t.stderr()).not.toMatch(/error/i);
    }
  });
});

describe('a2a-once serve --key-ttl / --expired-keys / --tombstone-ttl', () => {
  it('--key-ttl 90s: the card says keyTtlSeconds 90', async () => {
    const s = await serve(['--key-ttl', '90s', '--tombstone-ttl', '36h']);
    const ext = (await card(s.ep)).capabilities.extensions?.find((e) => e.uri.includes('idempotency'));
    expect(ext?.params).toMatchObject({ keyTtlSeconds: 90 });
    await stop(s.proc);
  });

  it('default: the card says keyTtlSeconds 86400 (24 h)', async () => {
    const s = await serve([]);
    const ext = (await card(s.ep)).capabilities.extensions?.find((e) => e.uri.includes('idempotency'));
    expect(ext?.params).toMatchObject({ keyTtlSeconds: 86_400 });
    await stop(s.proc);
  });

  it('--key-ttl 2s: a key minted 10 s ago is EXPIRED and runs nothing; a fresh one runs', async () => {
    const s = await serve(['--key-ttl', '2s']);
    for (const binding of BINDINGS) {
      const e = errorOf(await send(s.ep, binding, keyedMessage('stale', mintKey(Date.now() - 10_000))));
      expect(refusalShape(e)).toEqual(expectedShape(binding, REFUSALS.keyExpired));
    }
    expect(countEffects(s.log)).toBe(0);
    taskOf(await send(s.ep, 'rest', keyedMessage('fresh', mintKey())));
    expect(countEffects(s.log)).toBe(1);
    await stop(s.proc);
  });

  it('--key-ttl 24h: the same 10 s old key is accepted', async () => {
    const s = await serve(['--key-ttl', '24h']);
    taskOf(await send(s.ep, 'rest', keyedMessage('recent', mintKey(Date.now() - 10_000))));
    expect(countEffects(s.log)).toBe(1);
    await stop(s.proc);
  });

  it('--expired-keys treat-as-new: a key past --key-ttl runs as a new send', async () => {
    const s = await serve(['--key-ttl', '2s', '--expired-keys', 'treat-as-new']);
    taskOf(await send(s.ep, 'rest', keyedMessage('stale', mintKey(Date.now() - 10_000))));
    expect(countEffects(s.log)).toBe(1);
    await stop(s.proc);
  });
});

describe('a2a-once serve: 20 concurrent identical keyed sends against the CLI run once', () => {
  it('one line in the effects log, one task', async () => {
    const s = await serve(['--agent', 'slow', '--delay-ms', '100']);
    const m = keyedMessage('cli race');
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => send(s.ep, i % 2 ? 'rest' : 'jsonrpc', m)),
    );
    expect(new Set(answers.map((a) => taskOf(a).id)).size).toBe(1);
    expect(countEffects(s.log)).toBe(1);
    await stop(s.proc);
  });
});

describe('a2a-once serve --verbose logs', () => {
  it('carry the key hash, never the key', async () => {
    const s = await serve(['--verbose']);
    const key = freshKey();
    const m = keyedMessage('hello', key);
    taskOf(await send(s.ep, 'rest', m));
    taskOf(await send(s.ep, 'jsonrpc', m));
    errorOf(await send(s.ep, 'rest', keyedMessage('conflict', key)));
    await until(() => s.stderr().includes(keyHash(key)), 5000, 'key hash logged');
    expect(s.stderr()).not.toContain(key);
    await stop(s.proc);
    expect(s.stderr()).not.toContain(key);
  });
});

describe('a2a-once serve: bad option values exit 2 with a message', () => {
  it.each([
    [['--key-ttl', '90'], /--key-ttl|duration/],
    [['--key-ttl', '1w'], /--key-ttl|duration/],
    [['--key-ttl', 'soon'], /--key-ttl|duration/],
    [['--key-ttl', '-5s'], /--key-ttl|duration/],
    [['--tombstone-ttl', '7x'], /--tombstone-ttl|duration/],
    [['--tombstone-ttl', ''], /--tombstone-ttl|duration/],
    [['--max-keys', '-1'], /--max-keys/],
    [['--max-keys', 'lots'], /--max-keys/],
    [['--max-keys', '1.5'], /--max-keys/],
    [['--expired-keys', 'maybe'], /--expired-keys/],
  ])('%j', async (args, message) => {
    const r = await runToExit(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain('a2a-once serve');
    expect(r.stdout).not.toContain('listening');
  });
});
