/**
 * Names for task writes (ADR 0052). Every write a worker, admission, recovery or a cancel makes carries one, the
 * same on each attempt of that write, so a store can tell a retry of a write that landed (its answer lost: a
 * connection cut after COMMIT, a group commit's fallback) from a new write, and answer it as landed instead of
 * applying it again. A random prefix per process and a counter: unique without a clock or a UUID per write, and
 * short (the store keeps the last one with each task).
 */
import { randomBytes } from 'node:crypto';

const PREFIX = randomBytes(9).toString('base64url') + '.';
let counter = 0;

/** A write id no other write of this process, nor (but with negligible chance) of another, carries. */
export function newWriteId(): string {
  return PREFIX + (++counter).toString(36);
}
