/**
 * Where the Redis store keeps what (docs/guides/redis-store.md "Key layout", ADR 0115). Every key of one scope (tenant
 * + principal) carries the scope's hash tag, `{<tag>}`, so a scope's tasks, events, keys, push cursors, steps and
 * indexes share one cluster slot: a claim-and-create, which writes a key found by its name and a task found by its
 * id, is then one script on one slot. The tag is the scope, base64url-encoded, so it holds no brace and decodes
 * back to the scope. Store-wide keys (the scope registry, leadership roles) have no tag of their own.
 *
 * Names inside one scope are `<prefix>{<tag>}:<kind>:<name>`; the name is the last part, so no id can pass for
 * another (the prefix is checked to hold no brace). Members that join two names use U+0000, which no stored
 * name can hold (ADR 0059).
 */
import type { Scope } from '../scope.js';
import { StoreError } from '../sql/store-error.js';

/** The default key prefix. */
export const DEFAULT_REDIS_PREFIX = 'a2a-once:';

/** Checks a prefix: it must not hold a brace (it would move the hash tag) and must be short. */
export function checkPrefix(prefix: string): string {
  if (typeof prefix !== 'string' || /[{}]/.test(prefix) || prefix.length > 200 || prefix.includes('\u0000')) {
    throw new StoreError(
      'BAD_OPTIONS',
      'the Redis key prefix must be at most 200 characters, without braces or NUL',
    );
  }
  return prefix;
}

/** Tags computed lately: every call of the store names its scope, and a process serves few of them. */
const tags = new Map<string, string>();
/** Past this many, the cache starts again (a process with many scopes pays the encoding, nothing more). */
const MAX_CACHED_TAGS = 10_000;

/** The hash tag of a scope. */
export function scopeTag(scope: Scope): string {
  const text = `${scope.tenant}\u0000${scope.owner}`;
  let tag = tags.get(text);
  if (tag === undefined) {
    tag = Buffer.from(text, 'utf8').toString('base64url');
    if (tags.size >= MAX_CACHED_TAGS) tags.clear();
    tags.set(text, tag);
  }
  return tag;
}

/** The scope a tag stands for. */
export function scopeOfTag(tag: string): Scope {
  const text = Buffer.from(tag, 'base64url').toString('utf8');
  const cut = text.indexOf('\u0000');
  return { tenant: text.slice(0, cut), owner: text.slice(cut + 1) };
}

/** The names of one store's keys. */
export class RedisKeys {
  constructor(readonly prefix: string) {
    checkPrefix(prefix);
  }

  /** The base of every key of a scope: scripts get it as KEYS[1] and build the rest from it (same slot). */
  base(tag: string): string {
    return `${this.prefix}{${tag}}:`;
  }

  task(tag: string, id: string): string {
    return `${this.base(tag)}t:${id}`;
  }

  events(tag: string, id: string): string {
    return `${this.base(tag)}e:${id}`;
  }

  key(tag: string, key: string): string {
    return `${this.base(tag)}k:${key}`;
  }

  pushConfigs(tag: string, id: string): string {
    return `${this.base(tag)}pc:${id}`;
  }

  steps(tag: string, id: string): string {
    return `${this.base(tag)}s:${id}`;
  }

  /** The sharded channel commits of a scope's tasks are announced on (its message: the task id). */
  wakeChannel(tag: string): string {
    return `${this.base(tag)}w`;
  }

  /** The store-wide registry of scopes holding anything (a sorted set: tag by last use). */
  get scopes(): string {
    return `${this.prefix}scopes`;
  }

  /** A leadership role (`tryLead`). */
  lead(role: string): string {
    return `${this.prefix}lead:${role}`;
  }
}
