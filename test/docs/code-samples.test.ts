/**
 * Every ```ts block in docs/**\/*.md compiles, strict, against the package's public exports as built (dist/,
 * through package.json `exports`): a reader can copy any sample as it is. A block that does not compile fails this
 * test with its Markdown file and line. `npm test` builds first; run `npm run build` before running this file alone.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  compileSamples,
  extractSamples,
  formatProblems,
  samplesUnder,
  type CodeSample,
} from './code-samples.js';

const ROOT = resolve(import.meta.dirname, '../..');

/** A Markdown text with one good sample, one broken one (line 9: a number where a string goes) and one skipped. */
const FIXTURE = [
  '# fixture',
  '',
  '```ts',
  "import { mintKey } from 'a2a-once';",
  'const key: string = mintKey();',
  '```',
  '',
  '```ts',
  'const port: string = 8420;',
  '```',
  '',
  '```ts nocompile',
  'this is not TypeScript',
  '```',
].join('\n');

describe('extracting samples', () => {
  it('finds ts blocks with the line of their first line of code, and marks nocompile ones', () => {
    const samples = extractSamples('docs/fixture.md', FIXTURE);
    expect(samples.map((s) => [s.line, s.skipped])).toEqual([
      [4, false],
      [9, false],
      [13, true],
    ]);
    expect(samples[1]!.code).toBe('const port: string = 8420;');
  });

  it('takes a fence indentation off the code and ignores other languages and fences inside blocks', () => {
    const text = [
      '- item',
      '',
      '  ```ts',
      '  const a = 1;',
      '    const b = a;',
      '  ```',
      '',
      '````md',
      '```ts',
      'x',
      '```',
      '````',
    ];
    const samples = extractSamples('list.md', text.join('\n'));
    expect(samples).toEqual([
      { file: 'list.md', line: 4, code: 'const a = 1;\n  const b = a;', skipped: false },
    ]);
  });
});

describe('the code samples in docs/ and the README', () => {
  const samples = [
    ...samplesUnder(ROOT, 'docs'),
    ...extractSamples('README.md', readFileSync(join(ROOT, 'README.md'), 'utf8')),
  ];

  it('are there to check (the guides have samples)', () => {
    expect(samples.filter((s) => !s.skipped).length).toBeGreaterThan(10);
    const files = new Set(samples.map((s) => s.file));
    expect([...files]).toEqual(expect.arrayContaining(['docs/guides/quick-start.md', 'README.md']));
  });

  it('compile, strict, against the built package; a broken one is named by file and line', () => {
    // Without dist/ every `a2a-once/...` import fails to resolve: say so instead of listing a hundred errors.
    expect(
      existsSync(join(ROOT, 'dist/index.d.ts')),
      'dist/ is not built: run `npm run build` (npm test does it first)',
    ).toBe(true);
    // The fixture goes into the same program (one program for everything keeps this fast), as a Markdown file
    // that does not exist on disk: its problems prove the reporting, and must be the only ones.
    const fixture: CodeSample[] = extractSamples('docs/code-samples-fixture.md', FIXTURE);
    const problems = compileSamples(ROOT, [...samples, ...fixture]);
    const own = problems.filter((p) => p.file === 'docs/code-samples-fixture.md');
    expect(own.map((p) => p.line)).toEqual([9]);
    expect(own[0]!.message).toMatch(/^TS2322: Type 'number' is not assignable to type 'string'/);
    const real = problems.filter((p) => p.file !== 'docs/code-samples-fixture.md');
    expect(formatProblems(real), 'these samples in docs/ do not compile').toBe('');
  }, 120_000);

  it('say why wherever a block is left uncompiled (```ts nocompile)', () => {
    for (const s of samples.filter((x) => x.skipped)) {
      const text = readFileSync(join(ROOT, s.file), 'utf8').split('\n');
      // The reason is in the prose just above the block (the fence is on line s.line - 1).
      const before = text.slice(Math.max(0, s.line - 6), s.line - 1).join('\n');
      expect(before, `${s.file}:${s.line - 1}: say why this block is not compiled`).toMatch(/not compiled/i);
    }
  });
});
