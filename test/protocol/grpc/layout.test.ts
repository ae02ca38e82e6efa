/**
 * The gRPC peers stay optional (ADR 0105): only a `grpc/` folder (src/protocol/grpc/, src/server/grpc/, a
 * client's grpc transport) imports `@grpc/grpc-js` or `protobufjs`, and no other file statically imports a
 * `grpc/` folder (the CLI loads the server's with a dynamic import), so every other entry point loads without
 * either package installed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', '..', '..', 'src');
const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
const inGrpcFolder = (f: string) => f.split(sep).slice(0, -1).includes('grpc');
/** Static value imports (and re-exports); `import type` is erased and allowed. */
const staticImports = (text: string) =>
  [...text.matchAll(/^(?:import|export)(?!\s+type\b)[^;]*?from\s+'([^']+)'/gms)].map((m) => m[1] ?? '');

describe('gRPC layout', () => {
  it('keeps @grpc/grpc-js and protobufjs out of every file outside a grpc/ folder', () => {
    const importers = files.filter((f) =>
      staticImports(readFileSync(join(SRC, f), 'utf8')).some(
        (s) => s.startsWith('@grpc/') || s === 'protobufjs',
      ),
    );
    expect(importers.length).toBeGreaterThan(0);
    expect(importers.filter((f) => !inGrpcFolder(f))).toEqual([]);
  });

  it('has no file outside a grpc/ folder import one statically', () => {
    const offenders = files.filter(
      (f) =>
        !inGrpcFolder(f) &&
        staticImports(readFileSync(join(SRC, f), 'utf8')).some(
          (s) => s.startsWith('.') && /(^|\/)grpc\//.test(s),
        ),
    );
    expect(offenders).toEqual([]);
  });
});
