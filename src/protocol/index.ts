/**
 * The A2A v1.0 wire layer: hand-written types, zod schemas tied to them, lenient parsing, strict writing,
 * errors and constants. Imports nothing outside `src/protocol` except zod.
 */
export * from './agent-card.js';
export * from './constants.js';
export * from './error-wire.js';
export * from './errors.js';
export * from './event-sequence.js';
export * from './model.js';
export * from './parse.js';
export * from './requests.js';
export * from './schemas/index.js';
export * from './task-state.js';
export * from './timestamp.js';
export * from './wire-write.js';
