/**
 * How the in-memory store holds idempotency keys: live keys and tombstones are its own classes, one shape each
 * (ADR 0023), linked into the store's expiry queues (`ordered-queue.ts`), and never handed out: callers get a
 * plain `KeyRecord` built on demand (`toRecord`), only on the paths that read a key (a retry, a continuation),
 * never on a first send. So the queue links stay private to the store, and what a caller holds is a snapshot.
 *
 * A tombstone keeps only what a refusal and a reader need (ADR 0026): the key, the message and task it was
 * claimed for, and its times. Not the digest: a tombstone is never compared with a message, it only says "this
 * key expired" (records.ts). So a deferred digest is never computed just to make a tombstone, which turning a
 * copy of the live record into a tombstone used to do for nearly every key (SHA-256 of the message, on expiry).
 */
import type { KeyRecord } from '../records.js';
import type { MemoryPartition, TaskEntry } from './memory-partition.js';
import { LazyDigestKeyRecord } from './lazy-key-record.js';
import type { OrderedQueue, Queued } from './ordered-queue.js';

/**
 * A live key: it answers a retry with its task (or a conflict) until it expires with its task gone. Its digest is
 * deferred like any `LazyDigestKeyRecord`'s; what it adds are the store's private queue links.
 */
export class LiveKey extends LazyDigestKeyRecord implements Queued<LiveKey> {
  older: LiveKey | undefined = undefined;
  newer: LiveKey | undefined = undefined;
  queue: OrderedQueue<LiveKey> | undefined = undefined;
  /**
   * The task this key waits for, once the key is past its expiry while that task still exists: it is then out
   * of the expiry queue, and becomes a tombstone when the task goes (ADR 0025).
   */
  parkedOn: TaskEntry | undefined = undefined;

  constructor(
    key: string,
    messageId: string,
    taskId: string,
    createdAt: number,
    expiresAt: number,
    digest: string | (() => string),
    readonly partition: MemoryPartition,
  ) {
    super(key, messageId, taskId, createdAt, expiresAt, digest);
  }

  /** The record a caller gets. A digest not computed yet stays deferred, computed once for key and record. */
  toRecord(): KeyRecord {
    if (!this.digestKnown) {
      return new LazyDigestKeyRecord(
        this.key,
        this.messageId,
        this.taskId,
        this.createdAt,
        this.expiresAt,
        () => this.digest,
      );
    }
    return {
      key: this.key,
      messageId: this.messageId,
      digest: this.digest,
      taskId: this.taskId,
      createdAt: this.createdAt,
      expiresAt: this.expiresAt,
      tombstone: false,
    };
  }
}

/** An expired key: remembered so a late retry is refused as expired, for the tombstone TTL from `tombstonedAt`. */
export class Tombstone implements Queued<Tombstone> {
  older: Tombstone | undefined = undefined;
  newer: Tombstone | undefined = undefined;
  queue: OrderedQueue<Tombstone> | undefined = undefined;

  constructor(
    readonly key: string,
    readonly messageId: string,
    readonly taskId: string,
    readonly createdAt: number,
    readonly expiresAt: number,
    readonly tombstonedAt: number,
    readonly partition: MemoryPartition,
  ) {}

  /** The record a caller gets: no digest (see the file comment; records.ts says a tombstone's may be empty). */
  toRecord(): KeyRecord {
    return {
      key: this.key,
      messageId: this.messageId,
      digest: '',
      taskId: this.taskId,
      createdAt: this.createdAt,
      expiresAt: this.expiresAt,
      tombstone: true,
      tombstonedAt: this.tombstonedAt,
    };
  }
}
