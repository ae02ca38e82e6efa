/**
 * `a2a-once sweep --store URL [--older-than 7d] [--tombstone-ttl 7d] [--abandon-after 30d] [--batch-size N]
 * [--max-batches N] [--json]`: runs `purgeExpired` once, by hand (the server also runs it on a schedule,
 * docs/semantics.md §6 and ADR 0035). Progress goes
 * to stderr, redrawn in place on a terminal and a line per batch otherwise; the report goes to stdout.
 */
import { describeStoreUrl, openStore } from '../../store/open-store.js';
import {
  DEFAULT_INTERRUPTED_MAX_AGE_MS,
  DEFAULT_PURGE_BATCH_SIZE,
  DEFAULT_TERMINAL_MAX_AGE_MS,
  DEFAULT_TOMBSTONE_TTL_MS,
} from '../../store/retention.js';
import type { PurgeReport, RetentionPolicy } from '../../store/retention.js';
import { StoreError } from '../../store/sql/store-error.js';
import { parseArgs, parseDuration, usageFailure, UsageError } from '../args.js';
import type { CliIO } from '../io.js';

const USAGE =
  'usage: a2a-once sweep --store URL [--older-than 7d] [--tombstone-ttl 7d] [--abandon-after 30d] [--batch-size N] [--max-batches N] [--json]';

/** Cursor up one line and clear it: redraws the progress line on a terminal. */
const REDRAW = '\u001b[1A\u001b[2K';

interface SweepArgs {
  url: string;
  policy: Omit<RetentionPolicy, 'onProgress'>;
  json: boolean;
}

function positiveInt(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d+$/.test(text) || Number(text) < 1) throw new UsageError(`--${name} must be a positive integer`);
  return Number(text);
}

function parse(args: string[]): SweepArgs | 'help' {
  const p = parseArgs(args, {
    values: ['store', 'older-than', 'tombstone-ttl', 'abandon-after', 'batch-size', 'max-batches'],
    flags: ['json', 'help'],
  });
  if (p.flags.has('help')) return 'help';
  if (p.positionals.length > 0) throw new UsageError(`unexpected argument '${p.positionals[0]}'`);
  const url = p.values.get('store');
  if (url === undefined) throw new UsageError('--store is required');
  const olderThan = p.values.get('older-than');
  const tombstoneTtl = p.values.get('tombstone-ttl');
  const abandonAfter = p.values.get('abandon-after');
  const maxBatches = positiveInt('max-batches', p.values.get('max-batches'));
  return {
    url,
    json: p.flags.has('json'),
    policy: {
      terminalMaxAgeMs: olderThan === undefined ? DEFAULT_TERMINAL_MAX_AGE_MS : parseDuration(olderThan),
      tombstoneMaxAgeMs: tombstoneTtl === undefined ? DEFAULT_TOMBSTONE_TTL_MS : parseDuration(tombstoneTtl),
      interruptedMaxAgeMs:
        abandonAfter === undefined ? DEFAULT_INTERRUPTED_MAX_AGE_MS : parseDuration(abandonAfter),
      batchSize: positiveInt('batch-size', p.values.get('batch-size')) ?? DEFAULT_PURGE_BATCH_SIZE,
      ...(maxBatches === undefined ? {} : { maxBatches }),
    },
  };
}

function progressLine(r: PurgeReport): string {
  return `batch ${r.batches}: ${r.tasks} task(s) deleted, ${r.abandoned} abandoned task(s) ended, ${r.keys} key(s) expired, ${r.tombstones} tombstone(s) deleted`;
}

/** Runs the command; returns the exit code. */
export async function run(args: string[], io: CliIO): Promise<number> {
  let parsed: SweepArgs | 'help';
  try {
    parsed = parse(args);
  } catch (err) {
    return usageFailure('sweep', USAGE, err, io);
  }
  if (parsed === 'help') {
    io.out(USAGE);
    return 0;
  }
  const { url, policy, json } = parsed;
  const where = describeStoreUrl(url);
  let shown = 0;
  const onProgress = (r: PurgeReport) => {
    if (r.batches === shown) return; // the final call repeats the last batch
    io.err((io.isTTY && shown > 0 ? REDRAW : '') + progressLine(r));
    shown = r.batches;
  };
  try {
    const store = await openStore(url);
    try {
      if (io.isTTY) io.err(`sweeping ${where}...`);
      const report = await store.purgeExpired({ ...policy, onProgress });
      if (json) io.out(JSON.stringify(report));
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
    if (err instanceof StoreError && err.code === 'BAD_STORE_URL')
      return usageFailure('sweep', USAGE, new UsageError(err.message), io);
    io.err(`a2a-once sweep: ${where}: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  }
}
