/**
 * Checks of `tryLead`'s arguments, shared by the SQL stores (ADR 0028). A lease is stored as `now + ttlMs` in an
 * integer column, and a lease of no time would make every call a takeover: both are refused up front, with a
 * structured error, rather than stored.
 */
import { StoreError } from './store-error.js';

/** The error for arguments `tryLead` cannot honour, or undefined when they are fine. */
export function leaseInputError(role: string, holder: string, ttlMs: number): StoreError | undefined {
  if (typeof role !== 'string' || role === '')
    return new StoreError('BAD_ARGUMENT', 'tryLead: role must be a non-empty string');
  if (typeof holder !== 'string' || holder === '')
    return new StoreError('BAD_ARGUMENT', 'tryLead: holder must be a non-empty string');
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)
    return new StoreError(
      'BAD_ARGUMENT',
      `tryLead: ttlMs must be a positive whole number of ms, got ${String(ttlMs)}`,
    );
  return undefined;
}
