/**
 * Where a CLI command writes, so tests can capture output without spawning a process.
 */

/** Output sinks of a command. */
export interface CliIO {
  /** A line to standard output. */
  out(line: string): void;
  /** A line to standard error. */
  err(line: string): void;
  /** Whether standard output is a terminal (readable output) or not (plain lines). */
  readonly isTTY: boolean;
}

/** The real process streams. */
export const processIO: CliIO = {
  out: (line) => void process.stdout.write(line + '\n'),
  err: (line) => void process.stderr.write(line + '\n'),
  get isTTY() {
    return process.stdout.isTTY === true;
  },
};
