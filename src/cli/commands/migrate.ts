/**
 * `a2a-once migrate --store URL [--create]`: applies pending schema migrations to a SQLite or PostgreSQL store.
 * Safe to run while servers are up and from several machines at once (SQLite: IMMEDIATE transaction;
 * PostgreSQL: advisory lock). A SQLite file that does not exist is refused unless `--create`: a mistyped path
 * must not become a new, empty, "migrated" database. Exit 0 on success, 2 on bad usage, 1 on failure.
 */
import { describeStoreUrl, openStore } from '../../store/open-store.js';
import { UsageError } from '../args.js';
import type { CliIO } from '../io.js';
import { runCommand, runtimeFailure, subcommand } from '../program.js';
import { badStoreUrl, requireExistingStore } from '../store-file.js';

interface MigrateFlags {
  store?: string;
  create?: boolean;
}

/** Runs the command; returns the exit code. */
export function run(args: string[], io: CliIO): Promise<number> {
  const command = subcommand(io, 'migrate', 'apply pending schema migrations to a store')
    .usage('--store <url> [--create]')
    .option('--store <url>', 'the store (required): sqlite:PATH or postgres://USER@HOST/DB[?schema=NAME]')
    .option('--create', 'create the SQLite file if it does not exist (default: refuse a missing file)');
  return runCommand(command, args, io, async () => {
    const o = command.opts<MigrateFlags>();
    if (o.store === undefined) throw new UsageError('--store is required');
    const url = o.store;
    const where = `a2a-once migrate: ${describeStoreUrl(url)}`;
    try {
      requireExistingStore(url, o.create === true);
      const store = await openStore(url, { migrate: false });
      try {
        if (!store.migrate) {
          const why = url.trim().startsWith('memory')
            ? 'the memory store has no schema'
            : 'Redis has no schema: the store loads its scripts on first use';
          io.out(`${describeStoreUrl(url)}: nothing to migrate (${why})`);
          return 0;
        }
        const report = await store.migrate();
        io.out(
          report.applied.length === 0
            ? `${describeStoreUrl(url)}: schema is current (version ${report.version})`
            : `${describeStoreUrl(url)}: applied migration(s) ${report.applied.join(', ')}; schema now at version ${report.version}`,
        );
        return 0;
      } finally {
        await store.close();
      }
    } catch (err) {
      const usage = badStoreUrl(err);
      if (usage instanceof UsageError) throw usage;
      return runtimeFailure(where, err, io);
    }
  });
}
