/**
 * The links of the user guides (docs/guides/, docs/README.md, docs/performance.md) lead somewhere: a relative link
 * names a file of the repository, and a `#fragment` into a Markdown file names one of its headings (as GitHub
 * makes anchors of them). A guide that moves or renames a section breaks the links to it loudly, here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { markdownFiles } from './code-samples.js';

const ROOT = resolve(import.meta.dirname, '../..');
const GUIDES = [...markdownFiles(ROOT, 'docs/guides'), 'docs/README.md', 'docs/performance.md', 'README.md'];

/** What `npm pack` ships (package.json `files`, and what npm always adds), as paths relative to the root. */
const SHIPPED = [
  ...(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files,
  'package.json',
  'LICENSE',
];

/** Every Markdown file the package ships: the README and all of docs/ (ADRs included). */
const SHIPPED_MARKDOWN = ['README.md', ...markdownFiles(ROOT, 'docs')];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown text's headings (outside code blocks). */
function anchors(text: string): Set<string> {
  const out = new Set<string>();
  let inCode = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) inCode = !inCode;
    const h = inCode ? null : /^#{1,6} (.*)$/.exec(line);
    if (h) out.add(anchorOf(h[1]!));
  }
  return out;
}

/** The `](target)` links of a Markdown text, outside code blocks and inline code. */
function links(text: string): string[] {
  const prose = text.replace(/^\s*```[\s\S]*?^\s*```/gm, '').replace(/`[^`\n]*`/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

describe('anchorOf', () => {
  it('makes the anchors GitHub makes', () => {
    expect(anchorOf('messageId rules')).toBe('messageid-rules');
    expect(anchorOf('Every answer a keyed send can get, and what to do')).toBe(
      'every-answer-a-keyed-send-can-get-and-what-to-do',
    );
    expect(anchorOf('`a2a-once serve`')).toBe('a2a-once-serve');
  });
});

describe('links in the guides', () => {
  it.each(GUIDES)('%s: every relative link leads to a file, and every fragment to a heading', (file) => {
    const broken: string[] = [];
    for (const link of links(readFileSync(join(ROOT, file), 'utf8'))) {
      if (/^[a-z]+:/i.test(link)) continue; // https:, mailto:
      const [path = '', fragment] = link.split('#');
      const target = path === '' ? join(ROOT, file) : resolve(ROOT, dirname(file), path);
      if (!existsSync(target)) {
        broken.push(`${link}: no file ${relative(ROOT, target)}`);
        continue;
      }
      if (
        fragment !== undefined &&
        target.endsWith('.md') &&
        !anchors(readFileSync(target, 'utf8')).has(fragment)
      )
        broken.push(`${link}: no heading #${fragment} in ${relative(ROOT, target)}`);
    }
    expect(broken).toEqual([]);
  });
});

describe('links where the package is installed', () => {
  it('the package ships the README, docs/ and examples/', () => {
    expect(SHIPPED).toEqual(expect.arrayContaining(['README.md', 'docs', 'examples']));
  });

  it.each(SHIPPED_MARKDOWN)('%s: every relative link leads to a file the package ships', (file) => {
    const outside: string[] = [];
    for (const link of links(readFileSync(join(ROOT, file), 'utf8'))) {
      if (/^[a-z]+:/i.test(link)) continue;
      const [path = ''] = link.split('#');
      if (path === '') continue;
      const target = relative(ROOT, resolve(ROOT, dirname(file), path));
      const shipped = SHIPPED.some((s) => target === s || target.startsWith(`${s}/`));
      if (!shipped || !existsSync(join(ROOT, target))) outside.push(`${link} (${target})`);
    }
    // A link into test/, bench/ or src/ works on GitHub and nowhere the package is installed: name the path instead.
    expect(outside).toEqual([]);
  });
});

describe('ADR references', () => {
  it.each(SHIPPED_MARKDOWN)('%s: every "ADR NNNN" in its prose is a link to that ADR', (file) => {
    // Prose only: fenced blocks, inline code and the links themselves removed, what is left names no ADR.
    const prose = readFileSync(join(ROOT, file), 'utf8')
      .replace(/^\s*```[\s\S]*?^\s*```/gm, '')
      .replace(/`[^`\n]*`/g, '')
      .replace(/\[[^\]\n]*\]\([^)\n]*\)/g, '');
    expect(prose.match(/\bADRs? \d{4}\b.{0,40}/g) ?? []).toEqual([]);
  });
});
