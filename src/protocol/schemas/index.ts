/**
 * The zod schemas of the A2A v1.0 wire model: lenient readers tied to the hand-written types (see
 * `type-ties.ts`). Parse through `parse.ts` to get `InvalidParamsError`s with readable messages.
 */
export * from './agent-card.js';
export * from './core.js';
export * from './lenient.js';
export * from './requests.js';
export * from './scalars.js';
export * from './type-ties.js';
