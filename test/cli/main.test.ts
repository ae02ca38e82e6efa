import { describe, expect, it } from 'vitest';
import type { CliIO } from '../../src/cli/io.js';
import { COMMANDS, main } from '../../src/cli/main.js';

function capture(): CliIO & { out_: string[]; err_: string[] } {
  const out_: string[] = [];
  const err_: string[] = [];
  return { out_, err_, out: (l) => out_.push(l), err: (l) => err_.push(l), isTTY: false };
}

describe('a2a-once dispatcher', () => {
  it('lists every command on --help and exits 0', async () => {
    const io = capture();
    expect(await main(['--help'], io)).toBe(0);
    for (const name of Object.keys(COMMANDS)) expect(io.out_.join('\n')).toContain(name);
  });

  it('exits 2 with usage when no command is given', async () => {
    const io = capture();
    expect(await main([], io)).toBe(2);
    expect(io.out_[0]).toMatch(/^usage: a2a-once <command>/);
  });

  it('refuses an unknown command with exit 2 and names it', async () => {
    const io = capture();
    expect(await main(['frobnicate'], io)).toBe(2);
    expect(io.err_[0]).toBe("a2a-once: unknown command 'frobnicate'");
  });

  it('dispatches to a subcommand module', async () => {
    const io = capture();
    expect(await main(['serve', '--agent', 'nope'], io)).toBe(2);
    expect(io.err_.join('\n')).toMatch(/--agent must be one of/);
  });
});
