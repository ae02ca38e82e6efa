/**
 * No file the repository tracks holds a merge's conflict markers: a merge once left `<<<<<<<`/`=======`/`>>>>>>>`
 * around two lines of bench/README.md, which every check then passed (prettier keeps such lines, Markdown renders
 * them). Read from `git ls-files`, so untracked scratch files do not count; where git is absent, skipped.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

function trackedFiles(): string[] | undefined {
  try {
    return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' })
      .split('\0')
      .filter(Boolean);
  } catch {
    return undefined;
  }
}

/** The lines of `text` that are conflict markers, as `line: text`. */
function conflictMarkers(text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (/^(<{7}|>{7})( |$)/.test(line) || /^={7}$/.test(line)) found.push(`${i + 1}: ${line}`);
  });
  return found;
}

const files = trackedFiles();

describe('conflict markers', () => {
  it('are found by the check (a marked merge, and nothing in plain text)', () => {
    expect(conflictMarkers('a\n<<<<<<< HEAD\nb\n=======\nc\n>>>>>>> topic\nd')).toEqual([
      '2: <<<<<<< HEAD',
      '4: =======',
      '6: >>>>>>> topic',
    ]);
    expect(conflictMarkers('a heading\n=========\n<<<< not one\n')).toEqual([]);
  });

  it.skipIf(files === undefined)('are in no tracked file', () => {
    const marked: string[] = [];
    for (const f of files ?? []) {
      let text: string;
      try {
        text = readFileSync(join(ROOT, f), 'utf8');
      } catch {
        continue; // listed but absent (deleted in the work tree)
      }
      if (text.includes('\0')) continue; // binary
      for (const m of conflictMarkers(text)) marked.push(`${f}:${m}`);
    }
    expect(marked).toEqual([]);
  });
});
