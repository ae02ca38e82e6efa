/**
 * `a2a-once sweep --store URL [--older-than 7d] [--tombstone-ttl 7d] [--abandon-after 30d] [--batch-size N]
 * [--max-batches N] [--create] [--json]`: runs `purgeExpired` once, by hand (the server also runs it on a
 * schedule, docs/semantics.md §6 and ADR 0035). Progress goes to stderr, redrawn in place on a terminal and a
 * line per batch otherwise; the report goes to stdout. A SQLite file that does not exist is refused unless
 * `--create`: sweeping a mistyped path would report an empty store as clean.
 */
import { describeStoreUrl, openStore } from '../../store/open-store.js';
import {
  DEFAULT_INTERRUPTED_MAX_AGE_MS,
  DEFAULT_PURGE_BATCH_SIZE,
  DEFAULT_TERMINAL_MAX_AGE_MS,
  DEFAULT_TOMBSTONE_TTL_MS,
} from '../../store/retention.js';
import type { PurgeReport, RetentionPolicy } from '../../store/retention.js';
import { UsageError, durationOption, formatDuration, integerOption } from '../args.js';
import type { CliIO } from '../io.js';
import { runCommand, runtimeFailure, subcommand, textOption } from '../program.js';
import { badStoreUrl, requireExistingStore } from '../store-file.js';

/** Cursor up one line and clear it: redraws the progress line on a terminal. */
const REDRAW = '\u001b[1A\u001b[2K';

interface SweepFlags {
  store?: string;
  olderThan: string;
  tombstoneTtl: string;
  abandonAfter: string;
  batchSize: string;
  maxBatches?: string;
  create?: boolean;
  json?: boolean;
}

function policyOf(o: SweepFlags): Omit<RetentionPolicy, 'onProgress'> {
  const maxBatches = o.maxBatches === undefined ? undefined : integerOption('max-batches', o.maxBatches, 1);
  return {
    terminalMaxAgeMs: durationOption('older-than', o.olderThan),
    tombstoneMaxAgeMs: durationOption('tombstone-ttl', o.tombstoneTtl),
    interruptedMaxAgeMs: durationOption('abandon-after', o.abandonAfter),
    batchSize: integerOption('batch-size', o.batchSize, 1),
    ...(maxBatches === undefined ? {} : { maxBatches }),
  };
}

function progressLine(r: PurgeReport): string {
  return `batch ${r.batches}: ${r.tasks} task(s) deleted, ${r.abandoned} abandoned task(s) ended, ${r.keys} key(s) expired, ${r.tombstones} tombstone(s) deleted`;
}

/** The options with a default: flags, what they do, the default `--help` shows and the sweep applies. */
const VALUE_OPTIONS: readonly (readonly [string, string, string])[] = [
  [
    '--older-than <duration>',
    'delete finished tasks older than this',
    formatDuration(DEFAULT_TERMINAL_MAX_AGE_MS),
  ],
  [
    '--tombstone-ttl <duration>',
    'delete tombstones older than this',
    formatDuration(DEFAULT_TOMBSTONE_TTL_MS),
  ],
  [
    '--abandon-after <duration>',
    'end tasks left waiting for input this long',
    formatDuration(DEFAULT_INTERRUPTED_MAX_AGE_MS),
  ],
  ['--batch-size <n>', 'rows per transaction', String(DEFAULT_PURGE_BATCH_SIZE)],
];

/** Runs the command; returns the exit code. */
export function run(args: string[], io: CliIO): Promise<number> {
  const command = subcommand(io, 'sweep', 'purge expired tasks and keys from a store, once')
    .usage('--store <url> [options]')
    .option('--store <url>', 'the store (required): sqlite:PATH or postgres://USER@HOST/DB[?schema=NAME]');
  for (const [flags, description, fallback] of VALUE_OPTIONS)
    command.addOption(textOption(flags, description, fallback));
  command
    .option('--max-batches <n>', 'stop after this many batches (default: until done)')
    .option('--create', 'create the SQLite file if it does not exist (default: refuse a missing file)')
    .option('--json', 'print the report as JSON');
  return runCommand(command, args, io, async () => {
    const o = command.opts<SweepFlags>();
    if (o.store === undefined) throw new UsageError('--store is required');
    const url = o.store;
    const policy = policyOf(o);
    // A memory store opened here is a new, empty one, not the one a running server holds: sweeping it would
    // report a clean store and change nothing (the server's own retention sweeps its memory).
    if (url === 'memory' || url === 'sqlite::memory:')
      throw new UsageError(
        `--store ${url}: a memory store lives inside the server that holds it; this command would sweep a new, ` +
          'empty one. A server sweeps its own memory store (retention, on by default); sweep a sqlite: or ' +
          'postgres:// store here',
      );
    const where = describeStoreUrl(url);
    let shown = 0;
    const onProgress = (r: PurgeReport) => {
      if (r.batches === shown) return; // the final call repeats the last batch
      io.err((io.isTTY && shown > 0 ? REDRAW : '') + progressLine(r));
      shown = r.batches;
    };
    try {
      requireExistingStore(url, o.create === true);
      const store = await openStore(url);
      try {
        if (io.isTTY) io.err(`sweeping ${where}...`);
        const report = await store.purgeExpired({ ...policy, onProgress });
        if (o.json === true) io.out(JSON.stringify(report));
        else {
          io.out(
            `${where}: ${report.tasks} task(s) deleted, ${report.abandoned} abandoned task(s) ended, ` +
              `${report.keys} key(s) turned into tombstones, ` +
              `${report.tombstones} tombstone(s) deleted in ${report.batches} batch(es)`,
          );
          io.out(report.complete ? 'complete' : 'incomplete: --max-batches reached; run again to continue');
        }
        return 0;
      } finally {
        await store.close();
      }
    } catch (err) {
      const usage = badStoreUrl(err);
      if (usage instanceof UsageError) throw usage;
      return runtimeFailure(`a2a-once sweep: ${where}`, err, io);
    }
  });
}
