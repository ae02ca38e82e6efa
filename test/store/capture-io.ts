/** A CliIO that records what a command printed. */
import type { CliIO } from '../../src/cli/io.js';

/** Captured output plus the sink. */
export interface CapturedIO extends CliIO {
  readonly outLines: string[];
  readonly errLines: string[];
}

/** Makes a capturing CliIO. */
export function captureIO(isTTY = false): CapturedIO {
  const outLines: string[] = [];
  const errLines: string[] = [];
  return { outLines, errLines, isTTY, out: (l) => void outLines.push(l), err: (l) => void errLines.push(l) };
}
