/**
 * The store's scripts as one Redis Functions library (ADR 0133): the prelude's helpers are defined once, when a
 * node loads the library, instead of by every call, and each script is a function of it called with `FCALL`
 * (`FCALL_RO` for the reads). The library is named after a hash of its code, so two versions of the store
 * running side by side (a rolling upgrade) each find their own and neither replaces the other's.
 *
 * A node that does not have the library (a fresh node, a `FUNCTION FLUSH`, a failover to a replica that never
 * got it) answers "Function not found", having run nothing: the store loads the library on that node and calls
 * again, as it sends a script whole on NOSCRIPT (ADR 0116). A Redis that refuses functions altogether (an ACL
 * without `FUNCTION`, a proxy that does not pass it) is used through `EVALSHA` from then on, with one warning.
 */
import { createHash } from 'node:crypto';
import { LUA_LIBRARY_PRELUDE } from './lua/lua-prelude.js';
import type { RedisConnection } from './redis-connection.js';

/** One script as a function of the library. */
export interface LibraryFunction {
  /** The script's name (`commit`): letters, digits and dashes. */
  readonly name: string;
  /** Its Lua, without the prelude. */
  readonly body: string;
  readonly readOnly: boolean;
  /**
   * Runs when Redis is at `maxmemory` (the `allow-oom` flag): the scripts that free memory (retention, releases),
   * which a function without the flag could not run then. Others are refused whole, before they run anything.
   */
  readonly freesMemory: boolean;
}

/** The library as a node loads it, and each member's function name. */
interface Built {
  readonly code: string;
  readonly names: ReadonlyMap<LibraryFunction, string>;
}

const members: LibraryFunction[] = [];
let built: Built | undefined;

/**
 * Adds a script to the library. Every module adds its scripts when it is loaded, before any call builds the
 * library; a script added later is not in it, and runs by `EVALSHA` (`functionName` answers undefined).
 */
export function addToLibrary(fn: LibraryFunction): void {
  if (!/^[a-z0-9-]+$/.test(fn.name)) throw new TypeError(`bad script name for the library: ${fn.name}`);
  if (built === undefined) members.push(fn);
}

function build(): Built {
  // By name, so the code (and its hash) does not depend on the order modules were loaded in.
  members.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const flagsOf = (m: LibraryFunction) =>
    [m.readOnly ? `'no-writes'` : '', m.freesMemory ? `'allow-oom'` : ''].filter(Boolean).join(', ');
  // KEYS and ARGV are each function's parameters, so a script's body reads them as it does when sent alone.
  const member = (m: LibraryFunction, fn: string) =>
    `redis.register_function{ function_name = '${fn}', flags = { ${flagsOf(m)} },\n` +
    `  callback = function(KEYS, ARGV)\nuseScope(KEYS[1])\n${m.body}\nend }\n`;
  const hash = createHash('sha1')
    .update(LUA_LIBRARY_PRELUDE)
    .update(members.map((m) => member(m, m.name)).join(''))
    .digest('hex')
    .slice(0, 16);
  const library = `a2a_once_${hash}`;
  const names = new Map(members.map((m) => [m, `${library}_${m.name.replaceAll('-', '_')}`]));
  const body = members.map((m) => member(m, names.get(m)!)).join('');
  return { code: `#!lua name=${library}\n${LUA_LIBRARY_PRELUDE}\n${body}`, names };
}

function library(): Built {
  built ??= build();
  return built;
}

/** The function a script is in the library, or undefined when it is not in it. */
export function functionName(fn: LibraryFunction): string | undefined {
  return library().names.get(fn);
}

/** The library's code (`FUNCTION LOAD`), for tests and operators. */
export function libraryCode(): string {
  return library().code;
}

/** The library's name (`FUNCTION LIST LIBRARYNAME`). */
export function libraryName(): string {
  return /^#!lua name=(\S+)/.exec(library().code)![1]!;
}

/** Connections whose Redis refused functions: they run every script by `EVALSHA`. */
const refusing = new WeakSet<RedisConnection>();

/** Whether `conn` is to be used through functions. */
export function usesFunctions(conn: RedisConnection): boolean {
  return !refusing.has(conn);
}

/** The answer of a node that lacks the function: nothing ran. */
export function isFunctionMissing(err: unknown): boolean {
  return err instanceof Error && /Function not found/i.test(err.message);
}

/** An answer that says this Redis (or what stands before it) will not run functions at all. */
export function isFunctionsRefused(err: unknown): boolean {
  return err instanceof Error && /unknown command|NOPERM/i.test(err.message);
}

/** Stops using functions on `conn`, saying so once: every script then runs by `EVALSHA` on it. */
export function refuseFunctions(conn: RedisConnection, err: unknown): void {
  if (refusing.has(conn)) return;
  refusing.add(conn);
  const message = err instanceof Error ? err.message : String(err);
  process.emitWarning(
    `a2a-once Redis store: the server refused Redis Functions (${message}); scripts run by EVALSHA instead`,
    { code: 'A2A_ONCE_REDIS_FUNCTIONS' },
  );
}

/**
 * Loads the library on the node of `routeKey`'s slot. A library of this name that is there already (another
 * process loaded it meanwhile) is the same code: that is a success.
 */
export async function loadLibrary(conn: RedisConnection, routeKey: string): Promise<void> {
  const command = ['FUNCTION', 'LOAD', library().code];
  try {
    await (conn.sendKeyless ? conn.sendKeyless(command, routeKey) : conn.send(command, routeKey));
  } catch (err) {
    if (err instanceof Error && /already exists/i.test(err.message)) return;
    throw err;
  }
}
