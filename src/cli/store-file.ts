/**
 * The file behind a `sqlite:` store URL, read the way `openStore` reads it (`sqlite:data/a2a.db`,
 * `sqlite:///abs/a2a.db`, `sqlite::memory:`), for what the CLI says about a store before and after opening it.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { StoreError } from '../store/sql/store-error.js';
import { UsageError } from './args.js';

/** The absolute path of the SQLite file `url` names; undefined for other stores and `sqlite::memory:`. */
export function sqliteFileOf(url: string): string | undefined {
  const text = url.trim();
  if (!text.startsWith('sqlite:')) return undefined;
  let path = text.slice('sqlite:'.length);
  if (path.startsWith('//')) path = path.slice(2);
  if (path === '' || path === ':memory:') return undefined;
  return resolve(path);
}

/**
 * Refuses a SQLite file that does not exist, unless `create`: SQLite would create an empty database for a
 * mistyped path, and a maintenance command (`migrate`, `sweep`) would then report success on the wrong file.
 */
export function requireExistingStore(url: string, create: boolean): void {
  const file = sqliteFileOf(url);
  if (file === undefined || create || existsSync(file)) return;
  throw new Error(`no database at ${file} (pass --create to make a new one there)`);
}

/** A store URL that names no store is the user's typo (exit 2); every other failure to open a store is not. */
export function badStoreUrl(err: unknown): unknown {
  return err instanceof StoreError && err.code === 'BAD_STORE_URL'
    ? new UsageError(`--store: ${err.message}`)
    : err;
}
