/**
 * `a2a-once`: the wire model, the idempotency key helpers and the store contract. Server, client and store
 * backends are on their own subpaths (`a2a-once/server`, `a2a-once/client`, `a2a-once/stores/*`).
 */
export * from './protocol/index.js';
export * from './idempotency/index.js';
export * from './store/index.js';
export * from './telemetry/index.js';
