/**
 * Every command's command line, in-process: `--help` lists every option with its default, a usage error exits 2
 * with one line and the usage line, a runtime error exits 1 with one line (a stack only with A2A_ONCE_DEBUG=1), and
 * the values a user could get wrong are refused before anything opens.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { COMMANDS, main } from '../../src/cli/main.js';
import { DEFAULT_PORT, DEFAULT_STORE_URL } from '../../src/cli/commands/serve.js';
import { capture } from './capture.js';

const dir = mkdtempSync(join(tmpdir(), 'a2a-once-cli-options-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function help(command: string): Promise<string[]> {
  const io = capture(false);
  expect(await main([command, '--help'], io)).toBe(0);
  expect(io.errors).toEqual([]);
  return io.lines;
}

/** The help line of `flag`. */
function optionLine(lines: readonly string[], flag: string): string {
  const line = lines.find((l) => l.trimStart().startsWith(flag + ' ') || l.trim() === flag);
  expect(line, `${flag} in --help`).toBeDefined();
  return line!;
}

describe('--help', () => {
  it.each(Object.keys(COMMANDS))(
    '%s --help: exits 0 with its usage, description and options',
    async (name) => {
      const lines = await help(name);
      expect(lines[0]).toMatch(new RegExp(`^Usage: a2a-once ${name} `));
      expect(lines.join('\n')).toContain('-h, --help');
    },
  );

  it('serve --help lists every option with its default, the port included', async () => {
    const lines = await help('serve');
    const defaults: Record<string, string> = {
      '--host': '127.0.0.1',
      '--port': String(DEFAULT_PORT),
      '--agent': 'echo',
      '--store': DEFAULT_STORE_URL,
      '--key-ttl': '24h',
      '--tombstone-ttl': '7d',
      '--max-keys': 'auto: 100000 on memory, none on sqlite and postgres',
      '--expired-keys': 'refuse',
      '--retention-interval': '60s',
      '--retain-finished': '7d',
      '--abandon-after': '30d',
      '--lease': '30s',
      '--delay-ms': '500',
      '--effects-log': 'none',
    };
    const text = lines.join(' ').replace(/\s+/g, ' ');
    for (const [flag, value] of Object.entries(defaults)) {
      optionLine(lines, flag);
      expect(text).toMatch(
        new RegExp(`${flag} <[a-z]+> [^]*?\\(default: ${value.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\)`),
      );
    }
    optionLine(lines, '--verbose');
    expect(DEFAULT_PORT).toBe(8420);
  });

  it('sweep --help lists its defaults; migrate and sweep offer --create', async () => {
    const sweep = await help('sweep');
    expect(optionLine(sweep, '--older-than')).toContain('(default: 7d)');
    expect(optionLine(sweep, '--tombstone-ttl')).toContain('(default: 7d)');
    expect(optionLine(sweep, '--abandon-after')).toContain('(default: 30d)');
    expect(optionLine(sweep, '--batch-size')).toContain('(default: 1000)');
    optionLine(sweep, '--create');
    optionLine(await help('migrate'), '--create');
  });

  it('the client commands list their shared options', async () => {
    for (const name of ['send', 'get', 'tasks', 'cancel', 'card']) {
      const lines = await help(name);
      for (const flag of ['--timeout', '--binding', '--json', '--no-retry']) optionLine(lines, flag);
    }
    const send = await help('send');
    for (const flag of ['--key', '--message-id', '--task-id', '--stream']) optionLine(send, flag);
  });
});

describe('usage errors: exit 2, one line saying what is wrong, then the usage line', () => {
  it.each([
    ['serve', ['--bogus'], "a2a-once serve: unknown option '--bogus'"],
    ['serve', ['--compat', 'v0.2'], "a2a-once serve: --compat must be one of v0.3, not 'v0.2'"],
    [
      'serve',
      ['--port', '70000'],
      "a2a-once serve: --port must be a whole number from 0 to 65535, not '70000'",
    ],
    [
      'serve',
      ['--port', 'http'],
      "a2a-once serve: --port must be a whole number from 0 to 65535, not 'http'",
    ],
    [
      'serve',
      ['--port', '80.5'],
      "a2a-once serve: --port must be a whole number from 0 to 65535, not '80.5'",
    ],
    ['serve', ['--port', '-1'], "a2a-once serve: --port must be a whole number from 0 to 65535, not '-1'"],
    ['serve', ['--key-ttl', '0s'], 'a2a-once serve: --key-ttl must be longer than zero'],
    ['serve', ['--max-keys', '0'], "a2a-once serve: --max-keys must be a whole number, at least 1, not '0'"],
    ['serve', ['--store', 'oracle://x'], /^a2a-once serve: --store: unknown store 'oracle:\/\/x'/],
    [
      'serve',
      ['--retention-interval', '0s'],
      'a2a-once serve: --retention-interval must be longer than zero',
    ],
    ['serve', ['stray'], /^a2a-once serve: too many arguments/],
    ['send', ['http://127.0.0.1:1'], "a2a-once send: missing required argument 'text'"],
    ['send', ['http://127.0.0.1:1', 'x', '--jsn'], "a2a-once send: unknown option '--jsn'"],
    ['send', ['http://127.0.0.1:1', 'x', '--timeout', 'soon'], /^a2a-once send: --timeout: not a duration/],
    ['send', ['http://127.0.0.1:1', 'x', '--binding', 'GRPC'], /^a2a-once send: --binding must be one of/],
    ['get', ['http://127.0.0.1:1', 't', '--history', 'x'], /^a2a-once get: --history must be a whole number/],
    [
      'tasks',
      ['http://127.0.0.1:1', '--status', 'done'],
      "a2a-once tasks: --status: unknown task state 'done'; the states are submitted, working, completed, " +
        'failed, canceled, input-required, rejected, auth-required',
    ],
    [
      'tasks',
      ['http://127.0.0.1:1', '--status', 'unspecified'],
      /^a2a-once tasks: --status: unknown task state 'unspecified'; the states are submitted/,
    ],
    [
      'send',
      ['localhost:8420', 'hi'],
      'a2a-once send: <url>: "localhost:8420" has no scheme; did you mean http://localhost:8420?',
    ],
    [
      'get',
      ['127.0.0.1:8420', 't'],
      'a2a-once get: <url>: "127.0.0.1:8420" has no scheme; did you mean http://127.0.0.1:8420?',
    ],
    [
      'sweep',
      ['--store', 'memory'],
      /^a2a-once sweep: --store memory: a memory store lives inside the server that holds it/,
    ],
    ['migrate', [], 'a2a-once migrate: --store is required'],
    ['sweep', ['--store', 'memory', '--batch-size', '0'], /^a2a-once sweep: --batch-size must be/],
    ['demo', ['--fast'], "a2a-once demo: unknown option '--fast'"],
  ])('%s %j', async (name, args, first) => {
    const io = capture(false);
    expect(await main([name, ...args], io)).toBe(2);
    expect(io.lines).toEqual([]);
    if (typeof first === 'string') expect(io.errors[0]).toBe(first);
    else expect(io.errors[0]).toMatch(first);
    expect(io.errors.at(-1)).toMatch(new RegExp(`^usage: a2a-once ${name} .*--help lists every option`));
  });

  it('suggests the option meant', async () => {
    const io = capture(false);
    expect(await main(['sweep', '--store', 'memory', '--jsn'], io)).toBe(2);
    expect(io.errors[1]).toBe('(Did you mean --json?)');
  });
});

describe('runtime errors: exit 1, one line', () => {
  const saved = process.env.A2A_ONCE_DEBUG;
  afterEach(() => {
    if (saved === undefined) delete process.env.A2A_ONCE_DEBUG;
    else process.env.A2A_ONCE_DEBUG = saved;
  });

  it('an agent that cannot be reached', async () => {
    delete process.env.A2A_ONCE_DEBUG;
    const io = capture(false);
    expect(await main(['get', 'http://127.0.0.1:1', 'some-task', '--no-retry'], io)).toBe(1);
    expect(io.errors).toHaveLength(1);
    expect(io.errors[0]).toMatch(/^a2a-once get: /);
  });

  it('with A2A_ONCE_DEBUG=1, the stack follows the line', async () => {
    process.env.A2A_ONCE_DEBUG = '1';
    const io = capture(false);
    expect(await main(['get', 'http://127.0.0.1:1', 'some-task', '--no-retry'], io)).toBe(1);
    expect(io.errors[0]).toMatch(/^a2a-once get: /);
    expect(io.errors.slice(1).join('\n')).toMatch(/\n\s+at /);
  });
});

describe('migrate and sweep refuse a SQLite file that does not exist, unless --create', () => {
  it.each(['migrate', 'sweep'])('%s', async (name) => {
    const file = join(dir, `${name}-missing.db`);
    const io = capture(false);
    expect(await main([name, '--store', `sqlite:${file}`], io)).toBe(1);
    expect(io.errors).toEqual([
      `a2a-once ${name}: sqlite:${file}: no database at ${file} (pass --create to make a new one there)`,
    ]);
    expect(existsSync(file)).toBe(false);

    const created = capture(false);
    expect(await main([name, '--store', `sqlite:${file}`, '--create'], created)).toBe(0);
    expect(existsSync(file)).toBe(true);
    // Now it exists, no --create is needed.
    expect(await main([name, '--store', `sqlite:${file}`], capture(false))).toBe(0);
  });
});
