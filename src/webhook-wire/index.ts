/** The wire form of an a2a-once webhook, shared by the sender and the receiver (docs/semantics.md §5). */
export * from './webhook-wire.js';
