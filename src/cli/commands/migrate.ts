/**
 * `a2a-once migrate --store URL`: applies pending schema migrations to a SQLite or PostgreSQL store. Safe to run
 * while servers are up and from several machines at once (SQLite: IMMEDIATE transaction; PostgreSQL: advisory
 * lock). Exit 0 on success, 2 on bad usage, 1 on failure.
 */
import { describeStoreUrl, openStore } from '../../store/open-store.js';
import { StoreError } from '../../store/sql/store-error.js';
import { parseArgs, usageFailure, UsageError } from '../args.js';
import type { CliIO } from '../io.js';

const USAGE = 'usage: a2a-once migrate --store URL   (sqlite:PATH | postgres://USER@HOST/DB[?schema=NAME])';

/** Runs the command; returns the exit code. */
export async function run(args: string[], io: CliIO): Promise<number> {
  let url: string;
  try {
    const parsed = parseArgs(args, { values: ['store'], flags: ['help'] });
    if (parsed.flags.has('help')) {
      io.out(USAGE);
      return 0;
    }
    if (parsed.positionals.length > 0) throw new UsageError(`unexpected argument '${parsed.positionals[0]}'`);
    const store = parsed.values.get('store');
    if (store === undefined) throw new UsageError('--store is required');
    url = store;
  } catch (err) {
    return usageFailure('migrate', USAGE, err, io);
  }
  const where = describeStoreUrl(url);
  try {
    const store = await openStore(url, { migrate: false });
    try {
      if (!store.migrate) {
        io.out(`${where}: nothing to migrate (the memory store has no schema)`);
        return 0;
      }
      const report = await store.migrate();
      io.out(
        report.applied.length === 0
          ? `${where}: schema is current (version ${report.version})`
          : `${where}: applied migration(s) ${report.applied.join(', ')}; schema now at version ${report.version}`,
      );
      return 0;
    } finally {
      await store.close();
    }
  } catch (err) {
    if (err instanceof StoreError && err.code === 'BAD_STORE_URL')
      return usageFailure('migrate', USAGE, new UsageError(err.message), io);
    io.err(`a2a-once migrate: ${where}: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}
