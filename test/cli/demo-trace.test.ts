/**
 * `a2a-once demo --trace` as the built CLI runs it (dist/, ADR 0096): every `serve` process and the demo's own
 * client export their spans, and the demo prints the tree of the a2a-once run's trace: one root (the caller's
 * send), every server in it, each leaf's ledger effect exactly once, the retried sends replayed. Without the
 * OpenTelemetry SDK installed, `--trace` exits 2 in one line naming the packages, before starting anything.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CRASH_LEAF, LEAVES, TREE } from '../../src/cli/demo/topology.js';
import { TRACE_PACKAGES } from '../../src/otel/span-file.js';
import { CLI_PATH, cliBuilt } from '../processes/serve-process.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** Runs `node BIN ARGS` to its end. */
function run(bin: string, args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, out, err }));
  });
}

/** The printed trace: the lines after its heading, without the view's two-space indent. */
function traceSection(out: string): string[] {
  const lines = out.split('\n');
  const start = lines.findIndex((l) => l.startsWith('The trace of the a2a-once run'));
  expect(start, out).toBeGreaterThan(0);
  return lines
    .slice(start + 2)
    .filter((l) => l.startsWith('  '))
    .map((l) => l.slice(2));
}

describe.skipIf(!cliBuilt)('a2a-once demo --trace', () => {
  it('prints one trace: one root, every server, one ledger effect per leaf, the retries replayed', async () => {
    const { code, out, err } = await run(CLI_PATH, ['demo', '--trace', '--no-live']);
    expect(code, err).toBe(0);
    const trace = traceSection(out);
    expect(out).toMatch(/trace [0-9a-f]{32}: \d+ spans from 8 services/);

    const roots = trace.filter((l) => !/^[│├└ ]/.test(l));
    expect(roots).toHaveLength(1);
    expect(roots[0]).toMatch(/^SendMessage {2}\[caller\] {2}CLIENT {2}replayed/);
    // The caller's retry is replayed by the orchestrator.
    expect(
      trace.filter((l) => /a2a_once\.attempt {2}\[caller\] {2}attempt 2 {2}replayed/.test(l)),
    ).toHaveLength(1);

    for (const node of TREE) {
      const served = (outcome: string) =>
        trace.filter((l) => l.includes(`SendMessage  [${node.label}]  SERVER  ${outcome}`)).length;
      expect(served('claimed'), node.label).toBe(1);
      expect(served('replayed'), node.label).toBe(1);
    }
    for (const leaf of LEAVES) {
      const effects = trace.filter((l) => l.includes(`[${leaf.label}]`) && l.includes('=> ledger effect'));
      expect(effects, leaf.label).toHaveLength(1);
      expect(effects[0]).toMatch(/a2a_once\.step {2}\[leaf \w+\] {2}ledger-post: recorded/);
    }
    // Commits and polls are counts on their parent's line, not lines of their own.
    expect(trace.some((l) => /store commit/.test(l))).toBe(true);
    expect(trace.some((l) => /└─ (a2a_once\.store\.commit|GetTask)\b/.test(l))).toBe(false);
  }, 120_000);

  it("--crash: the killed leaf's resumed turn, a trace of its own linked to this one, shows its one effect", async () => {
    const { code, out, err } = await run(CLI_PATH, ['demo', '--trace', '--crash', '--no-live']);
    expect(code, err).toBe(0);
    const trace = traceSection(out);
    const linked = trace.findIndex((l) => l.startsWith('linked to this trace'));
    expect(linked, trace.join('\n')).toBeGreaterThan(0);
    expect(trace[linked + 1]).toMatch(
      new RegExp(`^a2a_once\\.agent\\.turn {2}\\[${CRASH_LEAF.label}\\] {2}resumed`),
    );
    for (const leaf of LEAVES) {
      const effects = trace.filter((l) => l.includes(`[${leaf.label}]`) && l.includes('=> ledger effect'));
      expect(effects, leaf.label).toHaveLength(1);
    }
    expect(trace.slice(linked + 1).filter((l) => l.includes('=> ledger effect'))).toHaveLength(1);
  }, 120_000);

  it('exits 2 in one line naming the packages when the OpenTelemetry SDK is not installed', async () => {
    // The package as installed without its devDependencies' SDK: dist/ and every dependency but the trace SDK.
    const dir = mkdtempSync(join(tmpdir(), 'a2a-once-no-sdk-'));
    try {
      cpSync(join(REPO, 'dist'), join(dir, 'dist'), { recursive: true });
      cpSync(join(REPO, 'package.json'), join(dir, 'package.json'));
      const modules = join(REPO, 'node_modules');
      mkdirSync(join(dir, 'node_modules', '@opentelemetry'), { recursive: true });
      for (const name of readdirSync(modules)) {
        if (name === '@opentelemetry') continue;
        symlinkSync(join(modules, name), join(dir, 'node_modules', name));
      }
      for (const name of readdirSync(join(modules, '@opentelemetry'))) {
        if (name === 'sdk-trace-base' || name === 'sdk-trace') continue;
        symlinkSync(join(modules, '@opentelemetry', name), join(dir, 'node_modules', '@opentelemetry', name));
      }
      const { code, out, err } = await run(join(dir, 'dist', 'cli', 'bin.js'), [
        'demo',
        '--trace',
        '--no-live',
      ]);
      expect(code).toBe(2);
      expect(out).toBe('');
      expect(err.trim().split('\n')).toEqual([
        `a2a-once demo: --trace needs ${TRACE_PACKAGES.join(', ')} installed: npm install ${TRACE_PACKAGES.join(' ')}`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
