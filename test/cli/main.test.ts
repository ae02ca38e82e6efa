/**
 * The `a2a-once` top level: `--help` lists the commands, `--version` prints the package's version, `help CMD` is
 * `CMD --help`, and a missing or unknown command is a usage error (exit 2).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMANDS, main } from '../../src/cli/main.js';
import { capture } from './capture.js';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

describe('a2a-once dispatcher', () => {
  it('lists every command on --help and exits 0', async () => {
    const io = capture();
    expect(await main(['--help'], io)).toBe(0);
    const help = io.lines.join('\n');
    expect(help).toMatch(/^Usage: a2a-once <command> \[options\]/);
    for (const [name, summary] of Object.entries(COMMANDS))
      expect(help).toMatch(new RegExp(`^ {2}${name} +${summary.replace(/[()+]/g, '\\$&')}$`, 'm'));
  });

  it('prints the version from package.json with --version and -v', async () => {
    for (const flag of ['--version', '-v']) {
      const io = capture();
      expect(await main([flag], io)).toBe(0);
      expect(io.lines).toEqual([VERSION]);
    }
  });

  it('answers `help CMD` with the help of CMD', async () => {
    const io = capture();
    expect(await main(['help', 'sweep'], io)).toBe(0);
    expect(io.lines[0]).toBe('Usage: a2a-once sweep --store <url> [options]');
  });

  it('exits 2 with the help on stderr when no command is given', async () => {
    const io = capture();
    expect(await main([], io)).toBe(2);
    expect(io.lines).toEqual([]);
    expect(io.errors[0]).toMatch(/^Usage: a2a-once <command>/);
  });

  it('refuses an unknown command with exit 2, names it, and lists the commands', async () => {
    const io = capture();
    expect(await main(['frobnicate'], io)).toBe(2);
    expect(io.errors[0]).toBe("a2a-once: unknown command 'frobnicate'");
    expect(io.errors[1]).toMatch(/^usage: a2a-once <command> \[options\]/);
    expect(io.errors[2]).toBe(`commands: ${Object.keys(COMMANDS).join(', ')}`);
  });

  it('refuses an unknown top-level option with exit 2', async () => {
    const io = capture();
    expect(await main(['--frob'], io)).toBe(2);
    expect(io.errors[0]).toBe("a2a-once: unknown option '--frob'");
  });

  it('dispatches to a subcommand module', async () => {
    const io = capture();
    expect(await main(['serve', '--agent', 'nope'], io)).toBe(2);
    expect(io.errors.join('\n')).toMatch(/--agent must be one of/);
  });
});
