/** The v0.3 proto-JSON bodies of the v0.3 HTTP+JSON binding, read into and written from v0.3 JSON (ADR 0100). */
export * from './from-proto.js';
export * from './to-proto.js';
