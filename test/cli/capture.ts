/** A CliIO that records what a command printed, for calling commands in-process. */
import type { CliIO } from '../../src/cli/io.js';

/** Captured stdout (`lines`) and stderr (`errors`) lines, and the sink. */
export interface Captured extends CliIO {
  readonly lines: string[];
  readonly errors: string[];
}

/** A capturing CliIO; `isTTY` says whether the command believes it writes to a terminal. */
export function capture(isTTY = true): Captured {
  const lines: string[] = [];
  const errors: string[] = [];
  return { lines, errors, isTTY, out: (l) => void lines.push(l), err: (l) => void errors.push(l) };
}
