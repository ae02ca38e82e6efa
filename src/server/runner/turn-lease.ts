/**
 * The lease a worker holds on the turn it runs (docs/semantics.md §4, ADR 0037): who grants it, how long it
 * lasts, and what the owner is called. The grant rides on writes that happen anyway (the task's creation, a
 * continuation's admitting commit, a recovery's takeover), so a send pays no store round trip for it.
 */
import { hostname } from 'node:os';
import { newUuid } from '../../protocol/uuid.js';
import type { LeaseGrant } from '../../store/task-store.js';

/** Thirty seconds: long enough that a GC pause or a slow query never costs a live worker its task. */
export const DEFAULT_LEASE_MS = 30_000;

/** The shortest lease accepted: renewals come every third of it, and a timer finer than a few ms is noise. */
export const MIN_LEASE_MS = 10;

/** Checks a lease length; a RangeError names what is wrong. */
export function checkLeaseMs(leaseMs: number): number {
  if (!Number.isSafeInteger(leaseMs) || leaseMs < MIN_LEASE_MS) {
    throw new RangeError(`leaseMs must be a whole number of ms, at least ${MIN_LEASE_MS}; got ${leaseMs}`);
  }
  return leaseMs;
}

/** A name for this server instance that no other process (or other server in this process) shares. */
export function defaultWorkerName(): string {
  return `${hostname()}:${process.pid}:${newUuid().slice(0, 8)}`;
}

/**
 * Grants the lease of a turn. The owner is `<process>#<fence>`: the fence names the turn (each turn of a task,
 * and each takeover, runs under its own fence), so two turns never share an owner, and the first turn's grant
 * is one object built once rather than one per send.
 */
export class TurnLeases {
  readonly #first: LeaseGrant;

  constructor(
    /** This server instance's name (see `defaultWorkerName`). */
    readonly workerName: string,
    readonly ttlMs: number,
  ) {
    this.#first = { owner: `${workerName}#1`, ttlMs };
  }

  /** The grant for the turn that runs under `fence`. */
  grant(fence: number): LeaseGrant {
    return fence === 1 ? this.#first : { owner: `${this.workerName}#${fence}`, ttlMs: this.ttlMs };
  }
}
