// The physical floor of a durable SQLite send, measured on the disk the bench's SQLite files live on: a keyed
// send is two commits (the claim-and-create, then the turn's commit), and with synchronous=FULL in WAL mode each
// commit ends in one fdatasync of the WAL (SQLite uses fdatasync on Linux). So the floor of a send at one
// connection is two fdatasyncs. The file is written the way a WAL at steady state is: 4 KiB frames overwriting a
// file already laid out (after its first checkpoint a WAL is rewritten from its start, not grown).
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const FRAME = Buffer.alloc(4096 + 24, 0x5a);
const FRAMES = 256;

/**
 * `samples` fdatasyncs after one frame's write each, in a scratch folder under `dir` (default: the temp dir, where
 * makeStore puts the SQLite files). Resolves with the p50 of one and of two consecutive ones, in ms.
 */
export function fsyncFloor({ dir = tmpdir(), samples = 200 } = {}) {
  const scratch = mkdtempSync(join(dir, 'a2a-once-fsync-'));
  const fd = openSync(join(scratch, 'wal'), 'w');
  try {
    for (let i = 0; i < FRAMES; i++) writeSync(fd, FRAME, 0, FRAME.length, i * FRAME.length);
    fdatasyncSync(fd);
    const one = [];
    for (let i = 0; i < samples; i++) {
      writeSync(fd, FRAME, 0, FRAME.length, (i % FRAMES) * FRAME.length);
      const t = performance.now();
      fdatasyncSync(fd);
      one.push(performance.now() - t);
    }
    const two = [];
    for (let i = 0; i + 1 < one.length; i += 2) two.push(one[i] + one[i + 1]);
    return { oneMs: p50(one), twoMs: p50(two) };
  } finally {
    closeSync(fd);
    rmSync(scratch, { recursive: true, force: true });
  }
}

function p50(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
