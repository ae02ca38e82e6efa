/**
 * Named prepared statements for a `pg` pool (ADR 0047): the store sends the same few statements over and over, and
 * PostgreSQL otherwise parses and plans each one every time. Given a name, pg prepares a statement once per
 * connection and then only binds and executes it. The wrapper keeps the store's structural `PgPoolLike`, so the
 * store never needs to know; PGlite and other pools are used as they are.
 */
import type { PgClientLike, PgPoolLike, PgResultLike } from './pg-pool-like.js';

/** The part of `pg`'s pool and client that takes a query config with a statement name. */
interface NamedQueryable {
  query(config: { name: string; text: string; values?: unknown[] }): Promise<PgResultLike>;
}

interface PgPool extends NamedQueryable {
  connect(): Promise<NamedQueryable & PgClientLike>;
  end(): Promise<void>;
}

/** A statement's name: one per distinct text, shared by every connection of the process. */
const names = new Map<string, string>();
function nameOf(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `a2a_once_${names.size + 1}`;
    names.set(text, name);
  }
  return name;
}

/** `pool` (a `pg.Pool`) sending every statement as a named prepared statement. */
export function preparedPool(pool: PgPool): PgPoolLike {
  return {
    query: (text, values) => pool.query({ name: nameOf(text), text, ...(values ? { values } : {}) }),
    async connect() {
      const client = await pool.connect();
      return {
        query: (text: string, values?: unknown[]) =>
          client.query({ name: nameOf(text), text, ...(values ? { values } : {}) }),
        release: (err?: Error | boolean) => client.release(err),
        on: (event: 'error', listener: (err: Error) => void) => client.on?.(event, listener),
        removeListener: (event: 'error', listener: (err: Error) => void) =>
          client.removeListener?.(event, listener),
      };
    },
    end: () => pool.end(),
  };
}
