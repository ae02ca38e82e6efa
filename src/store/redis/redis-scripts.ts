/**
 * The store's Lua scripts and how they are run: as functions of one library (`FCALL`, `FCALL_RO` for the reads,
 * ADR 0133), or, where the server refuses functions, by SHA1 (`EVALSHA`, or `EVALSHA_RO` for the reads, so
 * a read can never write), and sent whole (`EVAL`, `EVAL_RO`), which loads them into that node's cache, only
 * when the server answers NOSCRIPT (a restart, a failover, a node that never ran it, `SCRIPT FLUSH`; ADR 0116). A script's first key decides its slot:
 * scope scripts get the scope's base and touch only keys of that hash tag.
 */
import { createHash } from 'node:crypto';
import { LUA_PRELUDE } from './lua/lua-prelude.js';
import {
  LUA_CENSUS,
  LUA_FORGET_SCOPE,
  LUA_LAPSED,
  LUA_LIVE_KEYS,
  LUA_PARENT_RENEWAL,
  LUA_PURGE_KEYS,
  LUA_PURGE_REMAINS,
  LUA_PURGE_TASKS,
  LUA_RECORD_STEP,
  LUA_RENEW_LEASE,
  LUA_TRY_LEAD,
} from './lua/lua-housekeeping.js';
import {
  LUA_CLAIM_PUSH,
  LUA_DELETE_CONFIG,
  LUA_LIST_CONFIGS,
  LUA_PUSH_STATE,
  LUA_PUT_CONFIG,
  LUA_RECORD_PUSH,
} from './lua/lua-push.js';
import {
  LUA_CLAIM_KEY,
  LUA_COMMIT,
  LUA_CREATE,
  LUA_LIST,
  LUA_RELEASE_CLAIM,
  LUA_RELEASE_KEY,
} from './lua/lua-tasks.js';
import type { RedisConnection, RedisReply } from './redis-connection.js';
import {
  addToLibrary,
  functionName,
  isFunctionMissing,
  isFunctionsRefused,
  loadLibrary,
  refuseFunctions,
  usesFunctions,
  type LibraryFunction,
} from './redis-functions.js';

/** One script: its text, SHA1, and whether it only reads. */
export class RedisScript {
  readonly sha: string;
  constructor(
    readonly name: string,
    readonly body: string,
    readonly readOnly: boolean,
    /** The script as a function of the store's library (ADR 0133); without it, the script runs by SHA only. */
    readonly member?: LibraryFunction,
  ) {
    this.sha = createHash('sha1').update(body).digest('hex');
  }

  /**
   * Runs the script with `keys` (the first routes it) and `args`: as its function of the library, loading the
   * library where a node lacks it; by SHA where functions are refused, sent whole on NOSCRIPT.
   */
  async run(conn: RedisConnection, keys: readonly string[], args: readonly string[]): Promise<RedisReply> {
    const fn = this.member && usesFunctions(conn) ? functionName(this.member) : undefined;
    if (fn === undefined) return this.#evaluate(conn, keys, args);
    const command = [this.readOnly ? 'FCALL_RO' : 'FCALL', fn, String(keys.length), ...keys, ...args];
    try {
      return await conn.send(command, keys[0]);
    } catch (err) {
      if (isFunctionsRefused(err)) {
        refuseFunctions(conn, err);
        return this.#evaluate(conn, keys, args);
      }
      if (!isFunctionMissing(err)) throw err;
    }
    // The node lacks the library and ran nothing (a fresh node, FUNCTION FLUSH): load it there, call again.
    try {
      await loadLibrary(conn, keys[0]!);
    } catch (err) {
      if (!isFunctionsRefused(err)) throw err;
      refuseFunctions(conn, err);
      return this.#evaluate(conn, keys, args);
    }
    return conn.send(command, keys[0]);
  }

  async #evaluate(
    conn: RedisConnection,
    keys: readonly string[],
    args: readonly string[],
  ): Promise<RedisReply> {
    const command = [
      this.readOnly ? 'EVALSHA_RO' : 'EVALSHA',
      this.sha,
      String(keys.length),
      ...keys,
      ...args,
    ];
    try {
      return await conn.send(command, keys[0]);
    } catch (err) {
      if (!isNoScript(err)) throw err;
      // The script itself, with its keys: routed like EVALSHA (SCRIPT LOAD has no key, and a cluster client may
      // send it to any node), and the node caches it, so the next EVALSHA finds it.
      const evaluate = [this.readOnly ? 'EVAL_RO' : 'EVAL', this.body, ...command.slice(2)];
      return conn.send(evaluate, keys[0]);
    }
  }
}

function isNoScript(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('NOSCRIPT');
}

/** How a script of the library behaves (see `LibraryFunction`). */
interface ScriptKind {
  readOnly?: boolean;
  freesMemory?: boolean;
}

/**
 * A script of the library: `body` runs after the prelude, as a function of the library (FCALL) or sent alone
 * with the prelude in front (EVALSHA). `body` alone, without the prelude, when `prelude` is false (the
 * store-wide scripts, which use none of it).
 */
export function libraryScript(
  name: string,
  body: string,
  kind: ScriptKind = {},
  prelude = true,
): RedisScript {
  const member: LibraryFunction = {
    name,
    body,
    readOnly: kind.readOnly ?? false,
    freesMemory: kind.freesMemory ?? false,
  };
  addToLibrary(member);
  return new RedisScript(name, prelude ? LUA_PRELUDE + body : body, member.readOnly, member);
}

const scoped = (name: string, body: string, readOnly = false) => libraryScript(name, body, { readOnly });
const freeing = (name: string, body: string) => libraryScript(name, body, { freesMemory: true });

/** Every script of the store. */
export const SCRIPTS = {
  create: scoped('create', LUA_CREATE),
  claimKey: scoped('claim-key', LUA_CLAIM_KEY),
  commit: scoped('commit', LUA_COMMIT),
  releaseClaim: freeing('release-claim', LUA_RELEASE_CLAIM),
  releaseKey: freeing('release-key', LUA_RELEASE_KEY),
  list: scoped('list', LUA_LIST, true),
  putConfig: scoped('put-config', LUA_PUT_CONFIG),
  deleteConfig: freeing('delete-config', LUA_DELETE_CONFIG),
  listConfigs: scoped('list-configs', LUA_LIST_CONFIGS, true),
  pushState: scoped('push-state', LUA_PUSH_STATE, true),
  claimPush: scoped('claim-push', LUA_CLAIM_PUSH),
  recordPush: scoped('record-push', LUA_RECORD_PUSH),
  renewLease: scoped('renew-lease', LUA_RENEW_LEASE),
  lapsed: scoped('lapsed', LUA_LAPSED, true),
  census: scoped('census', LUA_CENSUS, true),
  recordStep: scoped('record-step', LUA_RECORD_STEP),
  parentRenewal: scoped('parent-renewal', LUA_PARENT_RENEWAL),
  purgeTasks: freeing('purge-tasks', LUA_PURGE_TASKS),
  purgeKeys: freeing('purge-keys', LUA_PURGE_KEYS),
  purgeRemains: scoped('purge-remains', LUA_PURGE_REMAINS, true),
  liveKeys: scoped('live-keys', LUA_LIVE_KEYS, true),
  tryLead: libraryScript('try-lead', LUA_TRY_LEAD, {}, false),
  forgetScope: libraryScript('forget-scope', LUA_FORGET_SCOPE, { freesMemory: true }, false),
} as const;
