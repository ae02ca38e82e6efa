/**
 * `ClientError` is defined in `transport/` (a refused redirect is raised there, and `transport/` imports nothing
 * above it, ADR 0033); the layers above keep importing it from here.
 */
export { ClientError } from '../transport/client-error.js';
export type { ClientErrorCode, ClientErrorDetails } from '../transport/client-error.js';
