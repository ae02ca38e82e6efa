/**
 * The consumer tsconfig docs/guides/production.md asks for: a TypeScript ESM project importing the package by
 * name compiles under `moduleResolution` node16, nodenext and bundler, and not under node10 (`"node"`), which
 * does not read package.json `exports` and so finds none of the subpaths. A CommonJS file under node16 cannot
 * import the package at all (it is ESM only). The package is the built repository (dist/, through `exports`),
 * linked into a throwaway project's node_modules; run `npm run build` first. The packed tarball's own types are
 * checked, without skipLibCheck, by pack.test.ts.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = resolve(import.meta.dirname, '../..');
const CONSUMER = [
  "import { mintKey } from 'a2a-once';",
  "import { A2AClient } from 'a2a-once/client';",
  "import { createA2AServer, lazyPeer } from 'a2a-once/server';",
  "import { serveNode } from 'a2a-once/server/node';",
  "import { createWebhookReceiver } from 'a2a-once/webhooks';",
  "import { openTelemetry } from 'a2a-once/otel';",
  'export const all = [mintKey, A2AClient, createA2AServer, lazyPeer, serveNode, createWebhookReceiver, openTelemetry];',
].join('\n');

let dir: string;

beforeAll(() => {
  expect(existsSync(join(REPO, 'dist/server/index.d.ts')), 'dist/ is not built: run `npm run build`').toBe(
    true,
  );
  dir = mkdtempSync(join(tmpdir(), 'a2a-once-consumer-'));
  mkdirSync(join(dir, 'node_modules', '@types'), { recursive: true });
  symlinkSync(REPO, join(dir, 'node_modules', 'a2a-once'), 'dir');
  symlinkSync(
    join(REPO, 'node_modules', '@types', 'node'),
    join(dir, 'node_modules', '@types', 'node'),
    'dir',
  );
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'consumer', type: 'module' }));
  writeFileSync(join(dir, 'app.ts'), CONSUMER);
  writeFileSync(join(dir, 'app.cts'), CONSUMER);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** The diagnostics of compiling `file` of the consumer with these settings, as `TS<code>` strings. */
function compile(file: string, module: ts.ModuleKind, moduleResolution: ts.ModuleResolutionKind): string[] {
  const options: ts.CompilerOptions = {
    module,
    moduleResolution,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
  };
  const program = ts.createProgram({ rootNames: [join(dir, file)], options });
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `TS${d.code}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n').split('\n')[0]}`);
}

describe('a consumer project importing a2a-once by name', () => {
  it.each([
    ['node16', ts.ModuleKind.Node16, ts.ModuleResolutionKind.Node16],
    ['nodenext', ts.ModuleKind.NodeNext, ts.ModuleResolutionKind.NodeNext],
    ['bundler', ts.ModuleKind.ESNext, ts.ModuleResolutionKind.Bundler],
  ] as const)(
    'compiles under moduleResolution %s',
    (_name, module, resolution) => {
      expect(compile('app.ts', module, resolution)).toEqual([]);
    },
    60_000,
  );

  it('does not under moduleResolution node10 ("node"): no subpath is found', () => {
    const problems = compile('app.ts', ts.ModuleKind.ESNext, ts.ModuleResolutionKind.Node10);
    expect(problems).toEqual(
      expect.arrayContaining([
        "TS2307: Cannot find module 'a2a-once/server' or its corresponding type declarations.",
        "TS2307: Cannot find module 'a2a-once/client' or its corresponding type declarations.",
      ]),
    );
  }, 60_000);

  it('a CommonJS file under node16 cannot import the package (ESM only)', () => {
    const problems = compile('app.cts', ts.ModuleKind.Node16, ts.ModuleResolutionKind.Node16);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((p) => p.startsWith('TS1479:'))).toBe(true);
  }, 60_000);
});
