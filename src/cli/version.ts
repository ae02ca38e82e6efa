/**
 * The package's version, for `a2a-once --version`: read from package.json at run time (two folders up from both
 * `src/cli/` and `dist/cli/`), not imported, since a JSON import needs an import attribute that Node 20's
 * releases spell differently.
 */
import { readFileSync } from 'node:fs';

/** The `version` of the package.json this file ships in, or `unknown` when it cannot be read. */
export function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: unknown;
    };
    return typeof pkg.version === 'string' ? pkg.version : 'unknown';
  } catch {
    return 'unknown';
  }
}
