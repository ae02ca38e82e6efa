/**
 * docs/guides/configuration.md keeps up with the CLI as built: every option `a2a-once serve --help` lists is in
 * the guide's `serve` table with its default, and every option of the other commands is in their section. The
 * help is read from the built CLI (dist/), the one users run; without it these checks are skipped, saying why.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const CLI = resolve(ROOT, 'dist/cli/bin.js');
const GUIDE = 'docs/guides/configuration.md';
const built = existsSync(CLI);
if (!built)
  console.warn('NOTICE: dist/cli/bin.js is missing (run npm run build); skipping the CLI options checks.');

/** One option as `--help` lists it. */
interface HelpOption {
  /** `--key-ttl`, or `-h, --help` as `--help`. */
  readonly name: string;
  /** The text after `(default: …)`, when the help names one. */
  readonly fallback: string | undefined;
}

function help(...args: string[]): string {
  return execFileSync(process.execPath, [CLI, ...args, '--help'], { encoding: 'utf8' });
}

/**
 * The options of a help text. Commander writes each on a line starting with two spaces and a dash, and wraps a
 * long description onto lines indented further; the wrapped lines are joined back before the default is read.
 */
function helpOptions(text: string): HelpOption[] {
  const section = text.split(/^Options:$/m)[1]?.split(/^\S.*:$/m)[0] ?? '';
  const entries: string[] = [];
  for (const line of section.split('\n')) {
    if (/^ {2}-/.test(line)) entries.push(line.trim());
    else if (/^ {4,}\S/.test(line) && entries.length > 0) entries[entries.length - 1] += ' ' + line.trim();
  }
  return entries.map((e) => {
    const name = /--[a-z0-9][a-z0-9-]*/.exec(e)?.[0] ?? e;
    const fallback = /\(default: (.*)\)$/.exec(e)?.[1];
    return { name, fallback };
  });
}

/** The guide's text from the heading `title` to the next heading of the same level. */
function section(title: string): string {
  const text = readFileSync(resolve(ROOT, GUIDE), 'utf8');
  const start = text.indexOf(`\n## ${title}\n`);
  expect(start, `${GUIDE} has no section "## ${title}"`).toBeGreaterThan(-1);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

/** Whether `text` names the option as a whole word (`--key` is not found inside `--key-ttl`). */
function names(text: string, option: string): boolean {
  return new RegExp(`${option}(?![a-z0-9-])`).test(text);
}

describe('helpOptions', () => {
  it('reads names and defaults, wrapped descriptions included', () => {
    const text = [
      'Usage: a2a-once serve [options]',
      '',
      'Options:',
      '  --store <url>      task store: memory or',
      '                     sqlite:PATH (default:',
      '                     sqlite:./a2a-once.db)',
      '  --verbose          log every request',
      '  -h, --help         show this help',
      '',
      'Some text after:',
      '  --not-an-option    x',
    ].join('\n');
    expect(helpOptions(text)).toEqual([
      { name: '--store', fallback: 'sqlite:./a2a-once.db' },
      { name: '--verbose', fallback: undefined },
      { name: '--help', fallback: undefined },
    ]);
  });
});

describe.skipIf(!built)(`${GUIDE} and the CLI as built`, () => {
  it('lists every option of `a2a-once serve --help`, each in a table row with its default', () => {
    const options = helpOptions(help('serve'));
    expect(options.length).toBeGreaterThan(10);
    const rows = section('`a2a-once serve`')
      .split('\n')
      .filter((l) => l.startsWith('|'));
    const missing: string[] = [];
    for (const o of options) {
      const row = rows.find((r) => names(r.split('|')[1] ?? '', o.name));
      if (row === undefined) missing.push(`${o.name}: no table row`);
      else if (o.fallback !== undefined && !row.includes(o.fallback))
        missing.push(`${o.name}: its row does not give the default ${o.fallback}`);
    }
    expect(missing, `${GUIDE}, section a2a-once serve`).toEqual([]);
  });

  it('names every option of the other commands', () => {
    const commands = [...help().matchAll(/^ {2}([a-z]+)\b/gm)]
      .map((m) => m[1]!)
      .filter((c) => c !== 'serve' && c !== 'help');
    expect(commands).toEqual(expect.arrayContaining(['send', 'migrate', 'sweep']));
    const text = section('The other commands');
    const missing: string[] = [];
    for (const command of commands) {
      expect(text.includes(`\`${command}`), `${GUIDE} does not name ${command}`).toBe(true);
      for (const o of helpOptions(help(command)))
        if (!names(text, o.name)) missing.push(`${command} ${o.name}`);
    }
    expect(missing, `${GUIDE}, section The other commands`).toEqual([]);
  });
});
