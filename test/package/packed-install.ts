/**
 * The package as a user gets it: `npm pack` of this repository, then `npm install` of the tarball in a fresh
 * folder (ADR 0060). Installs come from npm's cache first (`--offline`), then from the registry
 * (`--prefer-offline`); where neither can supply the dependencies the caller decides whether to skip.
 *
 * Install scripts are not run: better-sqlite3's fetches a prebuilt binary from GitHub, or compiles SQLite for
 * minutes where it cannot. The installed package is the same release this repository's tests run on, so its
 * native binding is copied from there instead: the one file the script would have put in place.
 */
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const REPO = fileURLToPath(new URL('../..', import.meta.url));

/** Runs a command; resolves with its output, rejects with it (and the exit code) on failure. */
export function run(
  cmd: string,
  args: readonly string[],
  cwd: string,
  timeoutMs = 180_000,
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      cmd,
      [...args],
      {
        cwd,
        timeout: timeoutMs,
        maxBuffer: 16 * 1024 * 1024,
        env: { ...process.env, npm_config_update_notifier: 'false' },
      },
      (err, stdout, stderr) => {
        if (!err) return resolve({ stdout, stderr });
        const failure: Error = Object.assign(new Error(err.message, { cause: err }), { stdout, stderr });
        reject(failure);
      },
    );
  });
}

/** A fresh folder with the packed package installed, or why it could not be made. */
export type PackedInstall =
  | { readonly ok: true; readonly dir: string; readonly tarball: string; readonly how: string }
  | { readonly ok: false; readonly why: string };

/** The version of a package installed under `root`, if any. */
export function installedVersion(root: string, name: string): string | undefined {
  const file = join(root, 'node_modules', name, 'package.json');
  if (!existsSync(file)) return undefined;
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

/** Packs the repository (its built `dist/`) and installs the tarball into a new folder under `parent`. */
export async function packAndInstall(parent: string): Promise<PackedInstall> {
  const packDir = mkdtempSync(join(parent, 'pack-'));
  const { stdout } = await run('npm', ['pack', '--pack-destination', packDir, '--json'], REPO);
  const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];
  const tarball = join(packDir, filename);
  const dir = join(parent, 'app');
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  const common = ['install', tarball, '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock'];
  let how = '';
  const failures: string[] = [];
  for (const mode of ['--offline', '--prefer-offline']) {
    try {
      await run('npm', [...common, mode], dir);
      how = mode;
      break;
    } catch (err) {
      const e = err as { stderr?: string; message: string };
      failures.push(`${mode}: ${(e.stderr || e.message).trim().split('\n').slice(-3).join(' ')}`);
    }
  }
  if (how === '') return { ok: false, why: `npm could not install the tarball (${failures.join('; ')})` };
  const sqliteVersion = installedVersion(dir, 'better-sqlite3');
  const ours = installedVersion(REPO, 'better-sqlite3');
  if (sqliteVersion !== undefined && sqliteVersion === ours) {
    const binding = join('node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node');
    mkdirSync(join(dir, 'node_modules', 'better-sqlite3', 'build', 'Release'), { recursive: true });
    copyFileSync(join(REPO, binding), join(dir, binding));
  } else if (sqliteVersion !== undefined) {
    // Another release than ours: build it the way its own install script would.
    await run('npm', ['rebuild', 'better-sqlite3'], dir, 600_000);
  }
  return { ok: true, dir, tarball, how };
}

/** A fresh temporary folder for one run. */
export function freshParent(): string {
  return mkdtempSync(join(tmpdir(), 'a2a-once-pack-'));
}
