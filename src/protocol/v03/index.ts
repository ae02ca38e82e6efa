/** A2A v0.3 wire shapes and their translation to and from v1.0 (docs/guides/v03-peers.md, ADR 0098, ADR 0102, ADR 0103). */
export * from './schemas.js';
export * from './states.js';
export * from './to-v1.js';
export * from './to-v03.js';
export * from './card.js';
export * from './requests-to-v03.js';
export * from './results-to-v1.js';
