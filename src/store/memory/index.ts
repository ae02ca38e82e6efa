export { MemoryTaskStore, type MemoryTaskStoreOptions } from './memory-task-store.js';
