/**
 * The ```ts blocks of the docs, found and type-checked. A sample a reader copies must compile as it is, against
 * the package as published: `import … from 'a2a-once/server'` resolves through package.json `exports` to the
 * built `dist/` types (the package imports itself by name), under the repository's strict settings.
 *
 * Every sample becomes one in-memory module beside its Markdown file (`guide.md.L42.ts`), so module resolution,
 * the package scope and ESM (top-level await) work as for a real file there, and nothing is written to disk. All
 * samples go into ONE program: the standard library and the package's types are checked once, not per block.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** A fenced code block in a Markdown file. */
export interface CodeSample {
  /** The Markdown file, relative to the repository root. */
  readonly file: string;
  /** Line (1-based) of the block's first line of code in that file. */
  readonly line: number;
  readonly code: string;
  /** Fenced as ```ts nocompile: shown, not compiled. */
  readonly skipped: boolean;
}

/** A sample that did not compile, located in its Markdown file. */
export interface SampleProblem {
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

const OPENING = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)(.*)$/;
const TS_LANGUAGES = new Set(['ts', 'typescript']);

/**
 * The ```ts (or ```typescript) blocks of one Markdown text, with their lines. Fences may be indented (inside a
 * list); the indentation is taken off the code. A block whose info string says `nocompile` is kept but marked.
 */
export function extractSamples(file: string, text: string): CodeSample[] {
  const lines = text.split(/\r?\n/);
  const out: CodeSample[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = OPENING.exec(lines[i]!);
    if (!open) continue;
    const [, indent = '', fence = '', language = '', rest = ''] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const l = lines[j]!;
      const trimmed = l.trimStart();
      // A closing fence: the same character, at least as long, nothing after it.
      if (trimmed.startsWith(fence) && /^(`+|~+)\s*$/.test(trimmed) && trimmed.trim().length >= fence.length)
        break;
      body.push(l.startsWith(indent) ? l.slice(indent.length) : l.trimStart());
    }
    if (TS_LANGUAGES.has(language.toLowerCase())) {
      out.push({ file, line: i + 2, code: body.join('\n'), skipped: /\bnocompile\b/.test(rest) });
    }
    i = j; // skip the block, whatever its language: a fence inside it is not a block
  }
  return out;
}

/** Every Markdown file under `dir` (recursively), sorted, as paths relative to `root`. */
export function markdownFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => relative(root, join(root, dir, f)))
    .sort();
}

/** The samples of every Markdown file under `dir`. */
export function samplesUnder(root: string, dir: string): CodeSample[] {
  return markdownFiles(root, dir).flatMap((f) => extractSamples(f, readFileSync(join(root, f), 'utf8')));
}

/** The repository's compiler settings (tsconfig.base.json: strict and the rest), for a check without output. */
function compilerOptions(root: string): ts.CompilerOptions {
  const path = join(root, 'tsconfig.base.json');
  const read = ts.readConfigFile(path, (p) => ts.sys.readFile(p));
  if (read.error) throw new Error(ts.flattenDiagnosticMessageText(read.error.messageText, '\n'));
  const raw = (read.config as { compilerOptions?: object }).compilerOptions ?? {};
  const { options, errors } = ts.convertCompilerOptionsFromJson(raw, root, path);
  if (errors.length > 0)
    throw new Error(errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, '\n')).join('\n'));
  // Every sample is a module (even one without imports), so two samples never share a global scope.
  return { ...options, noEmit: true, moduleDetection: ts.ModuleDetectionKind.Force };
}

/**
 * Type-checks `samples` (those not skipped) as one program; returns one problem per diagnostic, at its line in
 * the Markdown file. An empty list means every sample compiles.
 */
export function compileSamples(root: string, samples: readonly CodeSample[]): SampleProblem[] {
  const options = compilerOptions(root);
  const byPath = new Map<string, CodeSample>();
  for (const s of samples) if (!s.skipped) byPath.set(join(root, `${s.file}.L${s.line}.ts`), s);

  const host = ts.createCompilerHost(options, true);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  host.getSourceFile = (name, languageVersion, onError, shouldCreate) => {
    const sample = byPath.get(name);
    return sample
      ? ts.createSourceFile(name, sample.code, languageVersion, true)
      : getSourceFile(name, languageVersion, onError, shouldCreate);
  };
  host.fileExists = (name) => byPath.has(name) || fileExists(name);
  host.readFile = (name) => byPath.get(name)?.code ?? readFile(name);

  const program = ts.createProgram({ rootNames: [...byPath.keys()], options, host });
  const problems: SampleProblem[] = [];
  for (const d of program.getOptionsDiagnostics().concat(program.getGlobalDiagnostics())) {
    problems.push({ file: '(compiler options)', line: 0, message: flatten(d) });
  }
  for (const [path, sample] of byPath) {
    const source = program.getSourceFile(path);
    if (!source) {
      problems.push({ file: sample.file, line: sample.line, message: 'the sample was not compiled' });
      continue;
    }
    const diagnostics = [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ];
    for (const d of diagnostics) {
      const at = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line;
      problems.push({ file: sample.file, line: sample.line + at, message: flatten(d) });
    }
  }
  return problems;
}

function flatten(d: ts.Diagnostic): string {
  return `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
}

/** `docs/guides/x.md:42: TS2304: …`, one per line. */
export function formatProblems(problems: readonly SampleProblem[]): string {
  return problems.map((p) => `${p.file}:${p.line}: ${p.message}`).join('\n');
}
